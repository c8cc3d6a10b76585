;; Shape errors of special forms are found when the program is compiled and
;; raised when evaluation reaches the form, where and as they were before
;; (evalrun check reports them all at once).
(if true 1 (let x)) ;=> 1
---
(list 1 (when false (if 1)) 2) ;=> (1 nil 2)
---
(let ((n 0))
  (set! n (+ n 1))
  (if 1)) ;### arity 3 "'if' requires 3 arguments: (if condition then_branch else_branch)"
---
(let ((a (error "first")) (b)) 1) ;### user 10 "first"
---
(let ((a 1) (b)) 1) ;### value 13 "Invalid 'let' binding format: expected (symbol expression), got (b)"
---
(cond (false 1) (true 2) 5) ;=> 2
---
(step (error "name first") 1 :on-error frobnicate) ;### user 7 "name first"
---
(step "s" 1 :on-error frobnicate) ;### value 23 "step: unknown :on-error policy 'frobnicate' (expected fail, skip-optional, retry-once or retry N)"
---
(try (error "x") (catch :e 1)) ;### value 25 "cannot bind keyword ':e'"
---
(try 5 (catch :e 1)) ;=> 5
---
(define (f) (lambda (1) 2)) ;=> #<closure ()>
---
(define (f) (lambda (1) 2)) ;### type 22 "Lambda parameters must be symbols, got int: 1"
(f)
---
(loop 3 (get-context "q" (bogus 1))) ;### value 26 "Error during loop iteration 1/3: Unknown 'get-context' parameter: (bogus 1)"
---
(loop 0 (get-context "q" (bogus 1))) ;=> nil
