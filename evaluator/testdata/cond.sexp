;; §7.3 cond
(cond ((< 5 3) "a") ((> 5 3) "b") (else "c")) ;=> "b"
---
(cond ((< 5 3) "a") (else "c")) ;=> "c"
---
(cond ((< 5 3) "a")) ;=> nil
---
(cond) ;=> nil
---
(cond (5)) ;=> 5
---
(cond (nil) ("x")) ;=> "x"
---
(cond (true 1 2 3)) ;=> 3
---
(cond (false (error "no")) (true 1)) ;=> 1
---
(cond (else)) ;=> true
---
(cond (else 1) (true 2)) ;### value 7 "'else' must be the last cond clause"
---
(cond x) ;### value 7 "Invalid 'cond' clause: expected (test body...), got x"
---
(cond (false 1) 5) ;### value 17 "Invalid 'cond' clause: expected (test body...), got 5"
---
(cond ()) ;### value 7 "Invalid 'cond' clause: expected (test body...), got nil"
---
(cond ((error "t") 1)) ;### user 8 "t"
---
(let ((quote 1)) (cond (quote 2))) ;=> 2
