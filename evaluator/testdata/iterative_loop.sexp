;; §7.13 iterative-loop
(iterative-loop (max-iterations 5) (initial-input 0) (test-command "true")
  (executor (lambda (c i) (+ c 1))) (validator (lambda (cmd i) cmd))
  (controller (lambda (e v c i) (if (< e 3) (list 'continue e) (list 'stop e))))) ;=> 3
---
(iterative-loop :max-iterations 3 :initial-input 0
  :command-generator (lambda (inp) (string-append "cmd" inp))
  :executor (lambda (cmd) (list 'ran cmd)) :validator (lambda (cmd res) (list 'ok cmd))
  :controller (lambda (inp cmd res val)
                (if (< inp 1) (list 'continue (+ inp 1)) (list 'stop (list inp cmd res val))))) ;=> (1 "cmd1" (ran "cmd1") (ok "cmd1"))
---
(iterative-loop (max-iterations 2) (initial-input "in")
  (test-command (lambda (inp) (string-append "run " inp)))
  (executor (lambda (cmd) (string-upcase cmd))) (validator (lambda (cmd r) (list cmd r)))
  (controller (lambda (inp cmd r v) (list 'continue r)))) ;=> "RUN RUN IN"
---
(iterative-loop (max-iterations 1) (initial-input 'sym) (test-command "t")
  (executor (lambda (c i) c)) (validator (lambda (cmd i) cmd)) (controller (lambda (r v c i) (list 'continue r)))) ;=> sym
---
(iterative-loop (max-iterations 1) (initial-input 0) (test-command "t")
  (executor (lambda (c i) *loop-config*)) (validator (lambda (cmd i) (list cmd i))) (controller (lambda (r v c i) (list 'stop (list r v))))) ;=> ((dict "max-iterations" 1 "initial-input" 0) ("t" 1))
---
(iterative-loop (max-iterations 3) (initial-input 0) (test-command "t")
  (executor (lambda (c i) (+ c 1))) (validator (lambda (cmd i) cmd)) (controller (lambda (r v c i) (list 'continue r)))) ;=> 3
---
(iterative-loop (max-iterations 0) (initial-input 0) (test-command "t")
  (executor (lambda (c i) (error "no"))) (validator (lambda (cmd i) cmd)) (controller (lambda (r v c i) (list 'continue r)))) ;=> nil
---
(iterative-loop (max-iterations 1) (initial-input 0) (test-command "t") (command-generator list) ;### value 1 "iterative-loop: give either 'test-command' or 'command-generator', not both"
  (executor list) (validator list) (controller list))
---
(iterative-loop (max-iterations 1) (initial-input 0) ;### value 1 "iterative-loop: give either 'test-command' or 'command-generator'"
  (executor list) (validator list) (controller list))
---
(iterative-loop (max-iterations 1) (initial-input 0) (test-command 123) ;### type 68 "iterative-loop: 'test-command' must evaluate to a string or a function, got int: 123"
  (executor list) (validator list) (controller list))
---
(iterative-loop (max-iterations 1) (initial-input 0) (test-command "t")
  (executor (lambda (c i) (error "boom"))) (validator list) (controller list)) ;### user 27 "Error during iterative-loop iteration 1: boom"
---
(iterative-loop (max-iterations 1) (initial-input 0) (test-command "t")
  (executor list) (validator list) (controller 5)) ;### type 48 "iterative-loop: 'controller' expression must evaluate to a callable S-expression function, got int: 5"
---
(iterative-loop (max-iterations "x") (initial-input 0) (test-command "t") ;### value 33 "iterative-loop: 'max-iterations' must evaluate to a non-negative integer, got \"x\" (type: string)."
  (executor list) (validator list) (controller list))
