;; §7.4 and, or
(and) ;=> true
---
(and 1 2 3) ;=> 3
---
(and 1 nil 3) ;=> nil
---
(and 1 0 (error "no")) ;=> 0
---
(or) ;=> false
---
(or nil 0 "" 5) ;=> 5
---
(or nil false) ;=> false
---
(or 1 (error "no")) ;=> 1
---
(or (dict) (list)) ;=> nil
