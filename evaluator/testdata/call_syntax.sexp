;; §11.1 call syntax, as far as the evaluator checks it
(greet :name "Bob") ;=> #<TaskResult COMPLETE "Hello Bob!">
---
(pair (a "x") (b 2)) ;=> #<TaskResult COMPLETE "x/2">
---
(inferred (y 2) (x 1)) ;=> #<TaskResult COMPLETE "1+2">
---
(maybe) ;=> #<TaskResult COMPLETE "[]">
---
(greet (name 'Bob)) ;=> #<TaskResult COMPLETE "Hello Bob!">
---
(greet (name (list 1 "a"))) ;=> #<TaskResult COMPLETE "Hello [1,\"a\"]!">
---
(greet (name "a") (files (list "a.txt" "b.txt"))) ;=> #<TaskResult COMPLETE "Hello a!">
---
(greet) ;=> #<TaskResult FAILED "Missing parameter(s) or access error for substitution: name">
---
(greet "Bob") ;### value 8 "Invalid argument format for task 'greet'. Expected (key_symbol value_expression), got: \"Bob\""
---
(greet 'x) ;### value 8 "Invalid argument format for task 'greet'. Expected (key_symbol value_expression), got: (quote x)"
---
(greet :name) ;### value 8 "Invalid argument format for task 'greet'. Expected (key_symbol value_expression), got: :name"
---
(greet (name "a") (name "b")) ;### value 19 "Duplicate argument 'name' for task 'greet'"
---
(greet (name "a") :x 1) ;### value 19 "Task 'greet': do not mix (param expr) and :param expr arguments"
---
(greet (name "a") (files 3)) ;### value 19 "'files' argument for task 'greet' must evaluate to a list of strings, got int: 3"
---
(greet (name (+ 1 "a"))) ;### type 19 "'+' argument 2 must be a number, got string."
---
(echo-tool "x") ;### value 12 "Invalid argument format for task 'echo-tool'. Expected (key_symbol value_expression), got: \"x\""
