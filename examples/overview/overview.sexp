; Find the files about a topic with get-context, summarise each
; in parallel (subtype subtask inherits nothing, so each call sees only its
; own file) and merge the summaries.
;
;   evalrun run overview.sexp --set topic="HTTP retries and backoff"
;
; The first lookup builds the memory index (.evalrun/index.db) of the
; project: here the notes under docs/.

(define ctx (get-context topic (top_k 8)))
(when (has-key? ctx "error") (error (get ctx "error")))
(define paths (map (lambda (m) (get m "id")) (get ctx "matches")))
(define results (parallel-map (lambda (p) (summarize-file (path p) (files p))) paths))
(define ok (filter task-ok? results))                       ; task-ok? is passed by name
(log-message (length ok) "of" (length results) "files summarised")
(combine-summaries (topic topic) (summaries (map (lambda (r) (get-field r "content")) ok)))
