; Review the staged git diff with a command template and print
; one line per issue; fail the run when the review itself failed.
;
;   evalrun run review.sexp --set focus=security
;   evalrun task gdr "pay attention to error handling"   ; the same template, directly
;
; Run it inside a git work tree with staged changes. Under the echo provider
; the "answer" is the prompt, which is not JSON: the workflow stops with the
; parse error rather than pretend the diff is fine. examples/demo shows a
; review with real answers.

(define r (review/git-diff (focus focus)))
(unless (task-ok? r)
  (error (string-append "review failed: " (get-field r "content"))))
(when (null? (get-field r "parsedContent"))
  (error (string-append "the review is not JSON: " (get (get-field r "notes") "parseError" ""))))
(define issues (get (get-field r "parsedContent") "issues" nil))
(if (empty? issues)
    "LGTM"
    (string-join (map (lambda (i) (string-append (get i "file") ":" (get i "line" "?") ": " (get i "comment")))
                      issues)
                 "\n"))
