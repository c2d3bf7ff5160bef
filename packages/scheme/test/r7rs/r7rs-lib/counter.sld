;; Used by 5-program-structure.scm: a library with private state, a renamed export,
;; an exported macro referring to a private variable, and an included body file.
(define-library (r7rs-lib counter)
  (export next! (rename current-count count) bump! counter-base)
  (import (scheme base))
  (include "counter-body.scm")
  (begin
    (define-syntax bump!
      (syntax-rules ()
        ((_ n) (begin (set! counter (+ counter n)) counter))))))
