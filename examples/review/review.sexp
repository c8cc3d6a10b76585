; Review the staged git diff with a command template and print
; one line per issue; fail the run when the review itself failed.
;
;   evalrun run review.sexp --set focus=security
;   evalrun task gdr "pay attention to error handling"   ; the same template, directly
;
; Run it inside a git work tree with staged changes (make demo makes one).
; Under the echo provider the "answer" is the prompt, which is not JSON, so
; parsedContent is null and the workflow prints LGTM.

(define r (review/git-diff (focus focus)))
(unless (task-ok? r)
  (error (string-append "review failed: " (get-field r "content"))))
(define issues (get (get-field r "parsedContent") "issues" nil))
(if (empty? issues)
    "LGTM"
    (string-join (map (lambda (i) (string-append (get i "file") ":" (get i "line" "?") ": " (get i "comment")))
                      issues)
                 "\n"))
