;; §6.8 concurrency and §7.16 parallel
(parallel 1 2 3) ;=> (1 2 3)
---
(parallel) ;=> nil
---
(parallel (+ 1 1) "b" (list 3)) ;=> (2 "b" (3))
---
(parallel (greet (name "a")) (greet (name "b"))) ;=> (#<TaskResult COMPLETE "Hello a!"> #<TaskResult COMPLETE "Hello b!">)
---
(parallel-map (lambda (x) (* x x)) (list 1 2 3)) ;=> (1 4 9)
---
(parallel-map (lambda (x) x) nil) ;=> nil
---
(parallel-map greet (list "a" "b")) ;=> (#<TaskResult COMPLETE "Hello a!"> #<TaskResult COMPLETE "Hello b!">)
---
(parallel-map string-upcase (list "a" "b")) ;=> ("A" "B")
---
(let ((x 1)) (parallel (set! x 2))) ;### value 24 "set! of 'x' inside a parallel branch: the variable is shared"
---
(progn (define x 1) (parallel-map (lambda (i) (set! x i)) (list 1 2))) ;### value 47 "set! of 'x' inside a parallel branch: the variable is shared"
---
(let ((x 1)) (parallel (parallel (let ((y 1)) (set! x y))))) ;### value 47 "set! of 'x' inside a parallel branch: the variable is shared"
---
(parallel (let ((y 1)) (parallel (set! y 2)))) ;### value 34 "set! of 'y' inside a parallel branch: the variable is shared"
---
(parallel (let ((y 1)) (set! y 2) y)) ;=> (2)
---
(parallel (progn (define z 1) (set! z 5) z)) ;=> (5)
---
(parallel-map (lambda (i) (set! i (* i 10)) i) (list 1 2)) ;=> (10 20)
---
(progn (define x 1) (list (parallel (progn (define x 2) x) x) x)) ;=> ((2 1) 1)
---
(let ((x 1)) (parallel (let ((x 5)) (set! x 6) x))) ;=> (6)
---
(parallel 1 (error "boom") 3) ;### user 13 "boom"
---
(parallel-map (lambda (x) (if (= x 3) (error "bad") x)) (range 10)) ;### user 39 "bad"
---
(parallel 1 (+ 1 "a")) ;### type 18 "'+' argument 2 must be a number, got string."
---
(parallel-map (lambda (x) x) 5) ;### type 30 "'parallel-map' argument 2 must be a list, got int."
