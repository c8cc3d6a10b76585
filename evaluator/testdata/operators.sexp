;; §6.3 list forms and operator resolution
(let ((list (lambda (x) 99))) (list 1)) ;=> (1)
---
(let ((greet (lambda (x) 99))) (greet (name "B"))) ;=> #<TaskResult COMPLETE "Hello B!">
---
(let ((echo-tool (lambda (x) 99))) (get-field (echo-tool (a 1)) "content")) ;=> "{\"a\":1}"
---
(let ((if (lambda (x) 99))) (if true 1 2)) ;=> 1
---
((lambda (x) (+ x 1)) 2) ;=> 3
---
((if true + -) 5 2) ;=> 7
---
("list" 1 2) ;=> (1 2)
---
("greet" (name "Bob")) ;=> #<TaskResult COMPLETE "Hello Bob!">
---
(progn (define f "greet") (f (name "Bob"))) ;=> #<TaskResult COMPLETE "Hello Bob!">
---
(let ((f (lambda (a b) (- a b)))) (f 5 2)) ;=> 3
---
(let ((f "+")) (f 1 2)) ;=> 3
---
(let ((f '+)) (f 1 2)) ;=> 3
---
(echo-tool (a 1) (b "x")) ;=> #<TaskResult COMPLETE "{\"a\":1,\"b\":\"x\"}">
---
(echo-tool :a 1) ;=> #<TaskResult COMPLETE "{\"a\":1}">
---
() ;=> nil
---
(defatom t (instructions "sub {{x}}") (subtype "sub")) (list atomic:sub (atomic:sub (x 1))) ;=> ("atomic:sub" #<TaskResult COMPLETE "sub 1">)
---
(defatom t (instructions "sub {{x}}") (subtype "sub")) (map atomic:sub (list 2)) ;=> (#<TaskResult COMPLETE "sub 2">)
---
(1 2) ;### type 2 "Operator in list form must be a symbol or another list, got int: 1"
---
(1.5) ;### type 2 "Operator in list form must be a symbol or another list, got float: 1.5"
---
(true 1) ;### type 2 "Operator in list form must be a symbol or another list, got bool: true"
---
(foo 1) ;### unbound 2 "Unbound symbol or unrecognized operator: foo"
---
(list
  (nosuch (x 1))) ;### unbound 4 "Unbound symbol or unrecognized operator: nosuch"
---
(:kw 1) ;### unbound 2 "Unbound symbol or unrecognized operator: :kw"
---
("if" true 1 2) ;### type 1 "Operator 'if' is not a callable primitive, task, or tool."
---
("nosuch" 1) ;### type 1 "Operator 'nosuch' is not a callable primitive, task, or tool."
