; Fan out over a list with parallel-map: every item becomes one task call, at
; most eight run at once, and the results come back in input order.

(defatom summarize
  (params (topic string))
  (description "Summarise a topic in one sentence")
  (instructions "Summarise {{topic}} in one sentence."))

(define topics (list "retries" "backoff" "jitter" "timeouts"))

(define results
  (parallel-map (lambda (t) (summarize (topic t))) topics))

(log-message (length (filter task-ok? results)) "of" (length results) "summaries completed")

(string-join (map (lambda (r) (get-field r "content")) results) "\n")
