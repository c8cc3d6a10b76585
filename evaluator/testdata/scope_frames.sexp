;; §6.5 scope: variables whose frame is known when the program is compiled
;; and those that define, bind or a later let* binding may add at run time.
(let ((b 0)) (let* ((f (lambda () b)) (b 1)) (f))) ;=> 1
---
(let ((x 1)) (let ((y 2)) (define x 5) x)) ;=> 5
---
(let ((x 1)) ((lambda () (define y x) (define x 2) (list y x)))) ;=> (1 2)
---
(let ((x 1)) (if true (define x 3) 0) x) ;=> 3
---
(let ((x 1)) (parallel (progn (define x 2) x) x)) ;=> (2 1)
---
(let ((e 5)) (try (error "a") (catch e (get e "message")))) ;=> "a"
---
(let* ((f (lambda (n) (if (< n 1) 0 (f (- n 1)))))) (f 3)) ;=> 0
---
(let* ((a (let* ((b 1)) (define c 2) (+ b c))) (d a)) d) ;=> 3
---
(let* ((a (define z 7)) (b z)) b) ;=> 7
---
(let ((z 0)) (let* ((f (lambda () z))) (define z 9) (f))) ;=> 9
---
(let ((z 0)) (let ((f (lambda () z))) (define z 9) (f))) ;=> 0
---
(let ((a 1) (a 2)) (list a ((lambda () a)))) ;=> (2 2)
---
(let* ((a 1) (a (+ a 1))) ((lambda (b) (list a b)) a)) ;=> (2 2)
---
(define (f x) (lambda () (set! x (+ x 1)) x))
(let ((g (f 10))) (g) (g)) ;=> 12
---
(let ((x 1)) (let ((f (lambda () x))) (set! x 2) (f))) ;=> 2
---
(let ((x 1)) (step "s" (define x 4)) x) ;=> 4
---
(let ((n 3)) (loop n (define n 0)) n) ;=> 0
---
(let ((x 1)) (let ((x 2) (y x)) y)) ;=> 1
---
((lambda (a b c d e f) (list f e d c b a)) 1 2 3 4 5 6) ;=> (6 5 4 3 2 1)
---
(let ((x 1)) (lambda () x) (bind x 2) ((lambda () x))) ;=> 2
---
(let ((y 1)) (let ((f (lambda () y))) (bind y 20) (f))) ;=> 1
---
(let ((y 1)) ((lambda () (define k (lambda () y)) (define y 20) (k)))) ;=> 20
---
(let* ((a (define z 7)) (b 8)) (list a b z)) ;=> (7 8 7)
---
(let* ((a 1) (b (progn (define z 5) 2)) (c 3)) (list a b c z ((lambda () c)))) ;=> (1 2 3 5 3)
---
(define (g) x)
(define x 1)
(define a (g))
(define x 2)
(list a (g) ((lambda () (define x 3) (list x (g))))) ;=> (1 2 (3 2))
