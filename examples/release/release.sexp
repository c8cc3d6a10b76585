; A plan of steps with error policies. The plan step is retried
; twice, the baseline tests must pass, lint is optional, and each planned
; change is one step retried once. The input instructions of code/implement
; overrides the built-in placeholder of that name.
;
;   evalrun run release.sexp --set goal="Honour Retry-After in the HTTP client"
;
; The shell tool needs [tools] shell_allow = ["go", "git"] (.evalrun/config.toml)
; and runs go test and go vet on the small module beside this file. Under
; the echo provider the plan is the prompt, not JSON: parsedContent is null,
; no step is implemented, and the workflow says so instead of printing an
; empty string.

(define plan (get-field (step "plan" (plan/generate (goal goal)) :on-error retry 2) "parsedContent"))
(step "baseline-tests" (system_execute_shell_command (command "go test ./...")))     ; policy fail
(step "lint" (system_execute_shell_command (command "go vet ./...")) :on-error skip-optional)
(define patches
  (step "implement"
    (map (lambda (s)
           (step (get s "title")
                 (code/implement (title (get s "title")) (instructions (get s "instructions"))
                                 (files (get s "files" nil)))
                 :on-error retry-once))
         (get plan "steps" nil))))
(if (empty? patches)
    "no patches: the plan had no steps (is the model answering with JSON?)"
    (string-join (map (lambda (p) (get-field p "content")) patches) "\n"))
