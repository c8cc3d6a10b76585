; A first workflow: define an atomic task inline, call it, and branch on the
; result. Under the offline echo provider a task answers with its rendered
; prompt, so the output shows exactly what a model would have been sent.

(defatom greet
  (params (name string) (tone optional string))
  (description "Greet someone by name")
  (instructions "Write a one-line {{tone | default(\"friendly\")}} greeting for {{name}}."))

(define who "Ada")

(define result (greet (name who)))

(if (task-ok? result)
    (string-append "model said: " (get-field result "content"))
    (error (string-append "greeting failed: " (get-field result "content"))))
