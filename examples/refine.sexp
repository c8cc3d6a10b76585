; A director–evaluator loop: plan, draft and critique until the controller
; stops. The evaluator here is plain code (a length check), so the loop runs
; the same way offline as it would with a real model.

(defatom plan-draft
  (params (goal string) (advice string))
  (description "Plan the next revision of a draft")
  (instructions "Goal: {{goal}}. Advice so far: {{advice | default(\"none\")}}."))

(defatom write-draft
  (params plan)
  (description "Write a draft that follows a plan")
  (instructions "Draft following: {{plan}}"))

(director-evaluator-loop
  (max-iterations 3)
  (initial-director-input "")
  (director (lambda (advice i) (plan-draft (goal "a README intro") (advice advice))))
  (executor (lambda (plan i) (write-draft (plan plan))))
  (evaluator (lambda (draft plan i) (> (string-length (get-field draft "content")) 60)))
  (controller (lambda (long-enough plan draft i)
                (log-message "round" i "of" (get *loop-config* "max-iterations"))
                (if (or long-enough (= i 3))
                    (list 'stop (get-field draft "content"))
                    (list 'continue (string-append "round " i " was too short"))))))
