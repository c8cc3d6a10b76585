;; §6.5 environments and scope
(let ((y 10)) (let ((f (lambda () y))) (bind y 20) (f))) ;=> 10
---
(progn (define (fact n) (if (< n 2) 1 (* n (fact (- n 1))))) (fact 5)) ;=> 120
---
(let ((x 1)) (define x 2) x) ;=> 2
---
(progn (define x 1) (let ((y 0)) (define x 2)) x) ;=> 1
---
(progn (define x 1) (let ((y 0)) (set! x 2)) x) ;=> 2
---
(progn (define x 1) ((lambda () (define x 2) x))) ;=> 2
---
(progn (define n 1) (define (get-n) n) (let ((n 2)) (get-n))) ;=> 1
---
(progn (define (counter) (let ((c 0)) (lambda () (set! c (+ c 1)) c))) (define k (counter)) (k) (k) (k)) ;=> 3
---
(define :a 1) ;### value 9 "cannot bind keyword ':a'"
---
(define true 1) ;### value 9 "cannot bind 'true'"
---
(define false 1) ;### value 9 "cannot bind 'false'"
---
(define nil 1) ;### value 9 "cannot bind 'nil'"
---
(bind :a 1) ;### value 7 "cannot bind keyword ':a'"
---
(bind true 1) ;### value 7 "cannot bind 'true'"
---
(define (:f) 1) ;### value 10 "cannot bind keyword ':f'"
---
(let ((:a 1)) 1) ;### value 8 "cannot bind keyword ':a'"
---
(lambda (:a) 1) ;### value 10 "cannot bind keyword ':a'"
---
(try (error "x") (catch :e 1)) ;### value 25 "cannot bind keyword ':e'"
