;; Two coding agents review the same change in parallel, then Claude Code
;; merges their reviews (docs/agents.md). Run with the real agents
;; installed, or with the fakes of fake-bin/ first on PATH. The reviews are
;; logged to stderr; the value printed is the verdict.
(define change "func retry(n int) { for i := 0; i <= n; i++ { call() } }")
(let* ((reviews (parallel (agent-review (change change))
                          (second-opinion (change change))))
       (first-review (get-field (nth reviews 0) "content"))
       (second-review (get-field (nth reviews 1) "content"))
       (v (verdict (first first-review) (second second-review))))
  (log-message (string-append "review by claude:\n" first-review))
  (log-message (string-append "second opinion by codex:\n" second-review))
  (get-field v "content"))
