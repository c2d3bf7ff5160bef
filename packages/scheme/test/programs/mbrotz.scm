;; The r7rs-benchmarks mbrotZ kernel, smaller: the Mandelbrot set with complex
;; arithmetic (the iteration z := z*z + c on complex numbers), counting iterations
;; over a grid and printing the grid as text.
(import (scheme base) (scheme write) (scheme complex) (scheme inexact))

(define (count c max-iter)
  (let loop ((z 0.0) (i 0))
    (cond ((= i max-iter) i)
          ((> (magnitude z) 2.0) i)
          (else (loop (+ (* z z) c) (+ i 1))))))

(define (mbrot rows cols max-iter)
  (let rloop ((r 0) (total 0))
    (if (= r rows)
        total
        (let cloop ((k 0) (total total) (line '()))
          (if (= k cols)
              (begin
                (display (list->string (reverse line)))
                (newline)
                (rloop (+ r 1) total))
              (let* ((c (make-rectangular (+ -2.0 (* 2.5 (/ k cols)))
                                          (+ -1.0 (* 2.0 (/ r rows)))))
                     (n (count c max-iter)))
                (cloop (+ k 1) (+ total n) (cons (if (= n max-iter) #\# (if (> n 8) #\+ #\.)) line))))))))

(define total (mbrot 12 40 64))
(display total) (newline)
;; the benchmark's own check: the count at -1.0-0.5i
(display (count -1.0-0.5i 64)) (newline)
(write (list (* 1+2i 3-4i) (sqrt -4) (expt +i 2) (magnitude 3+4i) (exact (* 2 (make-polar 1.0 0))))) (newline)
