module github.com/evalrun/evalrun/bench/starlark

go 1.26.0

require github.com/evalrun/evalrun v0.0.0

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	github.com/beevik/etree v1.8.1 // indirect
	github.com/dlclark/regexp2 v1.11.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/pkoukk/tiktoken-go v0.1.8 // indirect
	github.com/pkoukk/tiktoken-go-loader v0.0.2 // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/evalrun/evalrun => ../..
