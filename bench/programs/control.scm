;; Deep non-tail recursion and call/cc-heavy code, shared by our Scheme and Guile
;; (bench/scheme.js: scheme.ack, scheme.fibc, scheme.ctak beside guile.*). Small
;; programs in the style of the Gabriel benchmarks of the same names.

;; Ackermann: (ack 3 n) recurses about 2^(n+3) deep and makes millions of calls,
;; most of them non-tail.
(define (ack m n)
  (cond ((= m 0) (+ n 1))
        ((= n 0) (ack (- m 1) 1))
        (else (ack (- m 1) (ack m (- n 1))))))

;; Fibonacci in continuation-passing style where every intermediate result is
;; delivered through a captured continuation: one call/cc per call.
(define (fibc-add x y k)
  (if (= y 0) (k x) (fibc-add (+ x 1) (- y 1) k)))
(define (fibc-k n k)
  (cond ((= n 0) (k 0))
        ((= n 1) (k 1))
        (else (fibc-add (call/cc (lambda (c) (fibc-k (- n 1) c)))
                        (call/cc (lambda (c) (fibc-k (- n 2) c)))
                        k))))
(define (fibc n) (fibc-k n (lambda (v) v)))

;; Takeuchi where every result returns by escaping through a continuation.
(define (ctak-k k x y z)
  (if (not (< y x))
      (k z)
      (ctak-k k
              (call/cc (lambda (c) (ctak-k c (- x 1) y z)))
              (call/cc (lambda (c) (ctak-k c (- y 1) z x)))
              (call/cc (lambda (c) (ctak-k c (- z 1) x y))))))
(define (ctak x y z) (call/cc (lambda (k) (ctak-k k x y z))))
