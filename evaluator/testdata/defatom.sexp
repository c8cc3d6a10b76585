;; §7.14 defatom
(defatom greet2 (params name) (instructions "Hello {{name}}!")) ;=> greet2
---
(defatom greet2 (params name) (instructions "Hello {{name}}!")) (greet2 (name "Bob")) ;=> #<TaskResult COMPLETE "Hello Bob!">
---
(defatom greet2 (instructions "Hello {{name}}!")) (greet2 (name "Bob")) ;=> #<TaskResult COMPLETE "Hello Bob!">
---
(defatom greet (instructions "Bye {{name}}!")) (greet (name "Bob")) ;=> #<TaskResult COMPLETE "Bye Bob!">
---
(defatom user:generate-plan (instructions "plan {{goal}}")) ;=> user:generate-plan
---
(defatom user:generate-plan (instructions "plan {{goal}}")) (user:generate-plan (goal "x")) ;=> #<TaskResult COMPLETE "plan x">
---
(defatom t (instructions "a") (description "d") (subtype "sub") (model "m") (type "atomic") (depends other "another")) ;=> t
---
(defatom t (instructions "{{p}}") (params (p optional string))) (t) ;=> #<TaskResult COMPLETE "">
---
(defatom t (params (p (object (f string)))) (instructions "{{p}}")) (t (p (dict "f" "x"))) ;=> #<TaskResult COMPLETE "{\"f\":\"x\"}">
---
(defatom t (params (n int) (s str) (b boolean) (l array) (d object) (x number) (f float) (a any)) (instructions "{{n}}")) ;=> t
---
(defatom t (instructions "a") (output_format ((type "json") (schema "DevelopmentPlan")))) ;=> t
---
(defatom t (instructions "a") (output_format '((type "json")))) ;=> t
---
(defatom t (instructions "a") (history_config ((use_session_history false) (history_turns_to_include 3)))) ;=> t
---
(defatom t (instructions "a") (history_config ((use_session_history nil)))) ;=> t
---
(list (defatom t (instructions "x")) (t)) ;=> (t #<TaskResult COMPLETE "x">)
---
(defatom t (instructions "x")) t ;=> "t"
---
(defatom "x" (instructions "a")) ;### type 10 "Task name must be a symbol, got string: x"
---
(defatom a..b (instructions "a")) ;### value 10 "Invalid task name 'a..b': must match ^[a-z0-9]+([-_:/.][a-z0-9]+)*$"
---
(defatom t x (instructions "a")) ;### value 12 "Attribute must be a list starting with a keyword: x"
---
(defatom t ("instructions" "a")) ;### value 12 "Attribute must be a list starting with a keyword: (\"instructions\" \"a\")"
---
(defatom t (instructions "a") (instructions "b")) ;### value 31 "Duplicate attribute: instructions"
---
(defatom t (foo 1) (instructions "a")) ;### value 12 "Unknown attribute name: foo. Allowed attributes: params, instructions, description, subtype, model, type, output_format, history_config, depends"
---
(defatom t (description "d")) ;### value 1 "Missing required 'instructions' attribute for task 't'"
---
(defatom t) ;### value 1 "Missing required 'instructions' attribute for task 't'"
---
(defatom t (instructions (list "x"))) ;### value 12 "'defatom' requires an (instructions \"string\") definition, got: (list \"x\") for task 't'"
---
(defatom t (instructions x)) ;### value 12 "'defatom' requires an (instructions \"string\") definition, got: x for task 't'"
---
(defatom t (instructions "a") (subtype (x))) ;### type 31 "Value for optional argument 'subtype' must be a string, got list: (x)"
---
(defatom t (instructions "a") (description 5)) ;### type 31 "Value for optional argument 'description' must be a string, got int: 5"
---
(defatom t (instructions "a") (type "composite")) ;### value 31 "type must be \"atomic\", got \"composite\""
---
(defatom t (params (p foo)) (instructions "{{p}}")) ;### value 23 "Unknown parameter type 'foo' for parameter 'p' in task 't'"
---
(defatom t (params 3) (instructions "a")) ;### value 20 "Invalid parameter definition format in (params ...) for task 't'. Expected symbol or (symbol type?), got: 3"
---
(defatom t (params (p int extra)) (instructions "a")) ;### value 20 "Invalid parameter definition format in (params ...) for task 't'. Expected symbol or (symbol type?), got: (p int extra)"
