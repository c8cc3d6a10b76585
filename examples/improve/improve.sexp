; A director–evaluator loop over three templates whose inputs
; are inferred from their placeholders (a TaskResult passed as an input
; renders as its content).
;
;   evalrun run improve.sexp --set goal="A Getting started section for README.md"
;
; It prints the accepted draft, or, when four rounds end without a score of
; 8, the last draft's TaskResult. Under the echo provider the critique is
; not JSON, so every score is 0 and all four rounds run.

(define (verdict fb key default) (get (get-field fb "parsedContent") key default))
(director-evaluator-loop
  (max-iterations 4)
  (initial-director-input "")
  (director (lambda (advice i) (writer:plan (goal goal) (advice advice))))
  (executor (lambda (plan i) (writer:draft (plan plan))))
  (evaluator (lambda (draft plan i) (writer:critique (goal goal) (draft draft))))
  (controller (lambda (fb plan draft i)
                (log-message "round" i "of" (get *loop-config* "max-iterations") "score" (verdict fb "score" 0))
                (if (>= (verdict fb "score" 0) 8)
                    (list 'stop (get-field draft "content"))
                    (list 'continue (verdict fb "advice" ""))))))
