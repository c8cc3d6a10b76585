;; §7.5 progn, begin
(progn) ;=> nil
---
(progn 1 2) ;=> 2
---
(begin) ;=> nil
---
(begin 1 2) ;=> 2
---
(progn (define x 1) (begin (define y 2)) (+ x y)) ;=> 3
