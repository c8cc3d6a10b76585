;; §7.10 loop
(let ((x 0)) (loop 3 (set! x (+ x 1)))) ;=> 3
---
(loop 0 1) ;=> nil
---
(loop 0 (error "no")) ;=> nil
---
(loop 2 (define k 9)) k ;=> 9
---
(let ((n 3) (c 0)) (loop n (progn (set! n 10) (set! c (+ c 1)))) c) ;=> 3
---
(loop 1 2 3) ;### arity 1 "Loop requires exactly 2 arguments: count_expression and body_expression. Got 3."
---
(loop 1) ;### arity 1 "Loop requires exactly 2 arguments: count_expression and body_expression. Got 1."
---
(loop "a" 1) ;### type 7 "Loop count must evaluate to an integer, got string."
---
(loop true 1) ;### type 7 "Loop count must evaluate to an integer, got bool."
---
(loop 2.0 1) ;### type 7 "Loop count must evaluate to an integer, got float."
---
(loop -2 1) ;### value 7 "Loop count must be non-negative, got -2."
---
(let ((i 0)) (loop 3 (progn (set! i (+ i 1)) (if (= i 2) (error "bad") i)))) ;### user 58 "Error during loop iteration 2/3: bad"
---
(loop 2 (loop 3 (error "in"))) ;### user 17 "Error during loop iteration 1/2: Error during loop iteration 1/3: in"
