;; Two coding agents review the same change in parallel, then Claude Code
;; merges their reviews (docs/agents.md). Run with the real agents
;; installed, or with the fakes of fake-bin/ first on PATH.
(define change "func retry(n int) { for i := 0; i <= n; i++ { call() } }")
(let* ((reviews (parallel (agent-review (change change))
                          (second-opinion (change change))))
       (v (verdict (first (get-field (nth reviews 0) "content"))
                   (second (get-field (nth reviews 1) "content")))))
  (list (get-field (nth reviews 0) "content")
        (get-field (nth reviews 1) "content")
        (get-field v "content")))
