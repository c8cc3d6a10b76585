;; §6.4 applying a value
((lambda (a b) a) 1) ;### arity 1 "Arity mismatch: Closure expects 2 arguments, got 1"
---
((lambda () 1) 1 2) ;### arity 1 "Arity mismatch: Closure expects 0 arguments, got 2"
---
(map (lambda (a b) a) (list 1)) ;### arity 1 "Arity mismatch: Closure expects 2 arguments, got 1"
---
(progn (define f "nosuch") (f 1)) ;### type 28 "Operator 'nosuch' is not a callable primitive, task, or tool."
---
(map "if" (list 1)) ;### type 1 "Operator 'if' is not a callable primitive, task, or tool."
---
(map 'lambda (list 1)) ;### type 1 "Operator 'lambda' is not a callable primitive, task, or tool."
---
(let ((f 5)) (f 1)) ;### type 14 "Cannot apply non-callable/non-closure operator: 5 (type: int)"
---
(let ((f (list 1))) (f 1)) ;### type 21 "Cannot apply non-callable/non-closure operator: (1) (type: list)"
---
(map 5 (list 1)) ;### type 1 "Cannot apply non-callable/non-closure operator: 5 (type: int)"
---
((list 1 2) 3) ;### type 1 "Cannot apply non-callable/non-closure operator: (1 2) (type: list)"
---
(map "echo-tool" (list 1)) ;### type 1 "tool 'echo-tool' cannot be applied to positional arguments; use (call \"echo-tool\" dict)"
---
(progn (define f "echo-tool") (f 1)) ;### value 34 "Invalid argument format for task 'echo-tool'. Expected (key_symbol value_expression), got: 1"
---
(map "string-upcase" (list "a")) ;=> ("A")
---
(map greet (list "Bob" "Ann")) ;=> (#<TaskResult COMPLETE "Hello Bob!"> #<TaskResult COMPLETE "Hello Ann!">)
---
(apply pair (list "x" 2)) ;=> #<TaskResult COMPLETE "x/2">
---
(apply maybe nil) ;=> #<TaskResult COMPLETE "[]">
---
(apply greet (list "a" "b")) ;### arity 1 "Task 'greet' expects at most 1 positional arguments, got 2"
