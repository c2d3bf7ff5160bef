;; Used by 5-program-structure.scm: a library exporting a record type, a library that
;; imports another one, cond-expand and include-library-declarations.
(define-library (r7rs-lib shapes)
  (import (scheme base) (r7rs-lib counter))
  (include-library-declarations "shapes-exports.scm")
  (cond-expand
    (r7rs (begin (define dialect 'r7rs)))
    (else (begin (define dialect 'other))))
  (begin
    (define-record-type <square> (make-square side) square? (side square-side))
    (define (area s) (* (square-side s) (square-side s)))
    (define (counter-plus k) (+ (count) k))))
