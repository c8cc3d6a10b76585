; Review the staged change: one reviewer per changed file, in parallel,
; then one call that merges their findings into a report with a verdict.
;
;   evalrun run review.sexp --json
(define changed
  (step "list changed files"
    (filter (lambda (f) (not (empty? f)))
            (string-split (get-field (system_execute_shell_command (command "git diff --staged --name-only"))
                                     "content")
                          "\n"))))
(log-message "reviewing" (length changed) "files:" (string-join changed ", "))

(define reviews
  (step "review each file"
    (parallel-map (lambda (f) (review/file (path f))) changed)))

(define report
  (get-field (step "merge findings"
               (review/merge (reviews (map (lambda (r) (get-field r "parsedContent"))
                                           (filter task-ok? reviews)))))
             "parsedContent"))

(map (lambda (f)
       (log-message (string-append "[" (get f "severity") "] " (get f "file") ":" (to-string (get f "line"))
                                   " " (get f "title"))))
     (get report "findings"))
report
