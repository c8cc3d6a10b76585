module github.com/evalrun/evalrun/bench/starlark

go 1.26.0

require github.com/evalrun/evalrun v0.0.0

require (
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/ncruces/go-strftime v1.1.0 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	modernc.org/libc v1.79.0 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.12.1 // indirect
	modernc.org/sqlite v1.61.1 // indirect
)

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	github.com/beevik/etree v1.8.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/evalrun/evalrun => ../..
