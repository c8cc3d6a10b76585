;; §7.9 try and errors
(try (error "boom") (catch e (get e "message"))) ;=> "boom"
---
(try (+ 1 "a") (catch e (get e "kind"))) ;=> "type"
---
(try 1 2 (catch e 0)) ;=> 2
---
(try (error "x") (catch e e)) ;=> (dict "message" "x" "kind" "user" "position" "testdata/try.sexp:8:6")
---
(try (nosuch) (catch e (get e "kind"))) ;=> "unbound"
---
(try ((lambda (x) x)) (catch e (get e "kind"))) ;=> "arity"
---
(try (json-parse "{") (catch e (get e "kind"))) ;=> "value"
---
(try (step "s" (error "x")) (catch e (list (get e "kind") (get e "message")))) ;=> ("step" "step 's' failed: x")
---
(try (error (list 1 "a")) (catch e (get e "message"))) ;=> "[1,\"a\"]"
---
(try (error "x") (catch e 1 2)) ;=> 2
---
(progn (define e 5) (try (error "x") (catch e 1)) e) ;=> 5
---
(try (define z 4) (catch e 0)) z ;=> 4
---
(let ((r (try (error "a") (catch e (try (error "b") (catch e2 (list (get e "message") (get e2 "message")))))))) r) ;=> ("a" "b")
---
(try (error "a") (catch e (error "b"))) ;### user 27 "b"
---
(try 1) ;### arity 1 "try requires a final (catch VAR handler...) clause"
---
(try) ;### arity 1 "try requires a final (catch VAR handler...) clause"
---
(try (catch e 1) 2) ;### arity 6 "try requires a final (catch VAR handler...) clause"
---
(try 1 (catch e 1) (catch e 2)) ;### arity 8 "try requires a final (catch VAR handler...) clause"
---
(try 1 (catch 5 1)) ;### arity 1 "try requires a final (catch VAR handler...) clause"
