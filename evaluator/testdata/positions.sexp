;; §6.6 evaluation errors and their positions
(+ 1 "a") ;### type 6 "'+' argument 2 must be a number, got string."
---
(list 1 (+ 1 "a")) ;### type 14 "'+' argument 2 must be a number, got string."
---
(progn
  (define (f x) (+ x "a")) ;### type 22 "'+' argument 2 must be a number, got string."
  (f 1))
---
(let ((x 1))
	(foo x)) ;### unbound 3 "Unbound symbol or unrecognized operator: foo"
---
(list 'é (nosuch)) ;### unbound 11 "Unbound symbol or unrecognized operator: nosuch"
---
(if 1 2) ;### arity 1 "'if' requires 3 arguments: (if condition then_branch else_branch)"
---
(list (if 1 2)) ;### arity 7 "'if' requires 3 arguments: (if condition then_branch else_branch)"
---
(greet (name (error "inner"))) ;### user 14 "inner"
---
(try (+ 1 "a") (catch e (get e "position"))) ;=> "testdata/positions.sexp:21:11"
---
(try
  (error "x")
  (catch e e)) ;=> (dict "message" "x" "kind" "user" "position" "testdata/positions.sexp:24:3")
