;; §7.1 quote
(quote a) ;=> a
---
'(1 "s" true nil x) ;=> (1 "s" true nil x)
---
(let ((x 10)) 'x) ;=> x
---
'(a (b c) ()) ;=> (a (b c) nil)
---
(quote (quote a)) ;=> (quote a)
---
':k ;=> :k
---
(quote) ;### arity 1 "'quote' requires exactly one argument: (quote expression)"
---
(quote a b) ;### arity 1 "'quote' requires exactly one argument: (quote expression)"
---
(list (quote a b)) ;### arity 7 "'quote' requires exactly one argument: (quote expression)"
