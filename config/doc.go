// Package config reads evalrun's configuration (SPEC §18): two TOML files,
// the global $EVALRUN_HOME/config.toml (else ~/.config/evalrun/config.toml)
// and the local .evalrun/config.toml under the project root, merged field by
// field with the local value winning and lists replaced whole.
//
// Every problem is an *Error positioned in its file: a TOML syntax error, an
// unknown key (with a hint when a known key is within edit distance 2), a
// value of the wrong type, and a value out of range or otherwise invalid (an
// unknown provider type, a duration that does not parse, a
// default_provider that names no provider). Errors print as
// "FILE:LINE:COL: MESSAGE" naming the key; the CLI exits with code 2.
//
// The files are decoded with github.com/pelletier/go-toml/v2 (a Decoder with
// DisallowUnknownFields, whose DecodeError and StrictMissingError carry the
// line and column); the positions of keys whose values fail the checks
// after decoding come from one pass of go-toml's unstable parser over the
// same text.
//
//	cfg, err := config.Load(config.GlobalPath(os.Getenv), config.LocalPath(root))
//	if err != nil {
//		for _, e := range config.Errors(err) {
//			os.Stderr.WriteString(e.Display()) // FILE:LINE:COL: MESSAGE, line, caret
//		}
//		os.Exit(2)
//	}
//	fmt.Println(cfg.Limits.MaxTurns) // 10 unless configured
package config
