;; §7.7 define, bind, set!
(define x 5) ;=> 5
---
(define x 5) x ;=> 5
---
(define (f p) p) ;=> #<closure (p)>
---
(define (f p q) (+ p q)) (f 1 2) ;=> 3
---
(define (f) 1 2) (f) ;=> 2
---
(bind y 7) ;=> 7
---
(bind y 7) y ;=> 7
---
(progn (define x 1) (let ((y 2)) (set! x 5)) x) ;=> 5
---
(define x 1) (set! x 2) ;=> 2
---
(define) ;### arity 1 "'define' requires a symbol and a value expression: (define name expression) or (define (name params...) body...)"
---
(define x) ;### arity 1 "'define' requires a symbol and a value expression: (define name expression) or (define (name params...) body...)"
---
(define x 1 2) ;### arity 1 "'define' requires a symbol and a value expression: (define name expression) or (define (name params...) body...)"
---
(define "x" 1) ;### type 9 "'define' first argument must be a symbol, got string."
---
(define (f x)) ;### arity 1 "'define' requires a body for the function: (define (name params...) body...)"
---
(define (f 1) 1) ;### type 12 "Lambda parameters must be symbols, got int: 1"
---
(define (f x x) 1) ;### value 14 "Duplicate lambda parameter: x"
---
(bind x) ;### arity 1 "'bind' requires a symbol and a value expression: (bind variable_symbol expression)"
---
(bind 1 2) ;### arity 1 "'bind' requires a symbol and a value expression: (bind variable_symbol expression)"
---
(bind x 1 2) ;### arity 1 "'bind' requires a symbol and a value expression: (bind variable_symbol expression)"
---
(set! x) ;### arity 1 "'set!' requires exactly two arguments: a symbol and a new value expression."
---
(set! x 1 2) ;### arity 1 "'set!' requires exactly two arguments: a symbol and a new value expression."
---
(set! "x" 1) ;### type 7 "'set!' first argument must be a symbol, got string."
---
(set! true 1) ;### type 7 "'set!' first argument must be a symbol, got bool."
---
(set! x 1) ;### unbound 7 "Cannot 'set!' unbound symbol: x"
