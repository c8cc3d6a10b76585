;; §7.15 atomic-task, direct-tool
(atomic-task greet (name "Bob")) ;=> #<TaskResult COMPLETE "Hello Bob!">
---
(atomic-task "greet" (name "Bob")) ;=> #<TaskResult COMPLETE "Hello Bob!">
---
(atomic-task greet :name "Bob") ;=> #<TaskResult COMPLETE "Hello Bob!">
---
(let ((n "gre")) (atomic-task (string-append n "et") (name "Bob"))) ;=> #<TaskResult COMPLETE "Hello Bob!">
---
(let ((greet "nosuch")) (atomic-task greet (name "Bob"))) ;=> #<TaskResult COMPLETE "Hello Bob!">
---
(atomic-task nosuch) ;=> #<TaskResult FAILED "Template not found: nosuch">
---
(atomic-task nosuch (x 1)) ;=> #<TaskResult FAILED "Template not found: nosuch">
---
(get (get (get-field (atomic-task nosuch) "notes") "error") "reason") ;=> "template_not_found"
---
(direct-tool echo-tool (a 1)) ;=> #<TaskResult COMPLETE "{\"a\":1}">
---
(direct-tool "echo-tool" (files "x")) ;=> #<TaskResult COMPLETE "{\"files\":\"x\"}">
---
(direct-tool nosuch) ;=> #<TaskResult FAILED "Tool 'nosuch' not found in registered executors.">
---
(get (get (get-field (direct-tool nosuch) "notes") "error") "reason") ;=> "template_not_found"
---
(direct-tool greet (name "x")) ;=> #<TaskResult FAILED "Tool 'greet' not found in registered executors.">
---
(atomic-task) ;### arity 1 "'atomic-task' requires a name: (atomic-task NAME (param expr)...)"
---
(atomic-task 5) ;### type 14 "'atomic-task' name must evaluate to a string, got int"
---
(atomic-task greet "Bob") ;### value 20 "Invalid argument format for task 'greet'. Expected (key_symbol value_expression), got: \"Bob\""
