;; A reader of standard input: count the words read with `read` (symbols and numbers),
;; sum the numbers, and list the symbols by how often they occur, then echo the rest of
;; the input line by line with read-line, upper-cased.
(import (scheme base) (scheme read) (scheme write) (scheme char))

(define (insert sym counts)
  (cond ((null? counts) (list (cons sym 1)))
        ((eq? (caar counts) sym) (cons (cons sym (+ (cdar counts) 1)) (cdr counts)))
        (else (cons (car counts) (insert sym (cdr counts))))))

(define (sort-counts counts)
  (if (null? counts)
      '()
      (let* ((best (let loop ((l (cdr counts)) (b (car counts)))
                     (cond ((null? l) b)
                           ((> (cdar l) (cdr b)) (loop (cdr l) (car l)))
                           (else (loop (cdr l) b)))))
             (rest (let loop ((l counts)) (cond ((null? l) '()) ((eq? (car l) best) (cdr l)) (else (cons (car l) (loop (cdr l))))))))
        (cons best (sort-counts rest)))))

(let loop ((x (read)) (sum 0) (counts '()))
  (cond ((and (symbol? x) (eq? x 'end))
         (write (list 'sum sum)) (newline)
         (write (sort-counts counts)) (newline))
        ((number? x) (loop (read) (+ sum x) counts))
        ((symbol? x) (loop (read) sum (insert x counts)))
        (else (loop (read) sum counts))))
(read-line) ; the rest of the "end" line
(let loop ((line (read-line)) (n 1))
  (unless (eof-object? line)
    (display n) (display ": ") (display (string-upcase line)) (newline)
    (loop (read-line) (+ n 1))))
