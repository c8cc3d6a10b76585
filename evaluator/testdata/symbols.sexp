;; §6.2 atoms and symbols
5 ;=> 5
---
"s" ;=> "s"
---
:kw ;=> :kw
---
(list :a :b) ;=> (:a :b)
---
(let ((x 1)) x) ;=> 1
---
null ;=> null
---
string-upcase ;=> "string-upcase"
---
+ ;=> "+"
---
greet ;=> "greet"
---
echo-tool ;=> "echo-tool"
---
(map string-upcase (list "a" "b")) ;=> ("A" "B")
---
(let ((string-upcase 5)) string-upcase) ;=> 5
---
x ;### unbound 1 "Unbound symbol: Name 'x' is not defined."
---
(list 1 x) ;### unbound 9 "Unbound symbol: Name 'x' is not defined."
---
(define f if) ;### unbound 11 "Unbound symbol: Name 'if' is not defined."
---
lambda ;### unbound 1 "Unbound symbol: Name 'lambda' is not defined."
---
(list quote) ;### unbound 7 "Unbound symbol: Name 'quote' is not defined."
---
(list defatom step parallel) ;### unbound 7 "Unbound symbol: Name 'defatom' is not defined."
---
*loop-config* ;### unbound 1 "Unbound symbol: Name '*loop-config*' is not defined."
