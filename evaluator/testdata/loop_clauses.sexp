;; §7.11 clause syntax of the loop forms
(director-evaluator-loop :max-iterations 3 :initial-director-input 0
  :director (lambda (in i) (+ in 1)) :executor (lambda (plan i) (* plan 10))
  :evaluator (lambda (res plan i) (> res 20))
  :controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan)))) ;=> 30
---
(director-evaluator-loop max-iterations 3 initial-director-input 0
  director (lambda (in i) (+ in 1)) executor (lambda (plan i) (* plan 10))
  evaluator (lambda (res plan i) (> res 20))
  controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan)))) ;=> 30
---
(director-evaluator-loop :max-iterations 3 :initial-director-input) ;### arity 1 "director-evaluator-loop: Uneven number of arguments. Expected key-value pairs."
---
(director-evaluator-loop (max-iterations 1) x) ;### value 45 "director-evaluator-loop: Each clause must be a list of (ClauseName Expression), got: x"
---
(director-evaluator-loop (max-iterations)) ;### value 26 "director-evaluator-loop: Each clause must be a list of (ClauseName Expression), got: (max-iterations)"
---
(director-evaluator-loop ("max-iterations" 1)) ;### value 26 "director-evaluator-loop: Each clause must be a list of (ClauseName Expression), got: (\"max-iterations\" 1)"
---
(director-evaluator-loop (max-iterations 1) (max-iterations 2)) ;### value 45 "director-evaluator-loop: Duplicate clause 'max-iterations' found."
---
(director-evaluator-loop :max-iterations 1 :max-iterations 2) ;### value 44 "director-evaluator-loop: Duplicate clause 'max-iterations' found."
---
(director-evaluator-loop (max-iterations 1) (foo 1)) ;### value 45 "director-evaluator-loop: Unknown clause 'foo'"
---
(iterative-loop (foo 1)) ;### value 17 "iterative-loop: Unknown clause 'foo'"
---
(director-evaluator-loop (max-iterations 1)) ;### value 1 "director-evaluator-loop: Missing required clauses: controller, director, evaluator, executor, initial-director-input"
---
(director-evaluator-loop) ;### value 1 "director-evaluator-loop: Missing required clauses: controller, director, evaluator, executor, initial-director-input, max-iterations"
---
(iterative-loop (max-iterations 1)) ;### value 1 "iterative-loop: Missing required clauses: controller, executor, initial-input, validator"
---
(director-evaluator-loop (max-iterations "one") (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))) ;### value 42 "director-evaluator-loop: 'max-iterations' must evaluate to a non-negative integer, got \"one\" (type: string)."
---
(director-evaluator-loop (max-iterations -1) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))) ;### value 42 "director-evaluator-loop: 'max-iterations' must evaluate to a non-negative integer, got -1 (type: int)."
---
(director-evaluator-loop (max-iterations true) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))) ;### value 42 "director-evaluator-loop: 'max-iterations' must evaluate to a non-negative integer, got true (type: bool)."
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director 123) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))) ;### type 82 "director-evaluator-loop: 'director' expression must evaluate to a callable S-expression function, got int: 123"
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director "nosuch") (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))) ;### type 82 "director-evaluator-loop: 'director' expression must evaluate to a callable S-expression function, got string: \"nosuch\""
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (d p r i) "stop"))) ;### value 1 "Controller must return a list of (action_symbol value), got: \"stop\""
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (d p r i) (list 'stop)))) ;### value 1 "Controller must return a list of (action_symbol value), got: (stop)"
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (d p r i) (list 1 2)))) ;### value 1 "Controller must return a list of (action_symbol value), got: (1 2)"
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (d p r i) (list 'stahp 1)))) ;### value 1 "Controller decision action must be 'continue' or 'stop' symbol, got: 'stahp'"
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (d p r i) (list "stop" 5)))) ;=> 5
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (d p r i) (if (< i 2) (list "continue" p) (list 'stop (list p r i)))))) ;=> (2 20 2)
---
(director-evaluator-loop (max-iterations 0) (initial-director-input 0) (director (lambda (in i) (error "no"))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))) ;=> nil
---
(director-evaluator-loop (max-iterations 2) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))) ;=> 20
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (d p r i) (list 'continue p)))) ;=> 30
