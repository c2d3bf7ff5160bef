;;; PING/PONG through the tuple space
;;; (Carriero and Gelernter, "The S/Net's Linda Kernel", 1986, §5)
;;;
;;; Two processes that never name each other: PONG outs ("ping") and waits in
;;; in for ("pong"); PING waits for ("ping") and outs ("pong"). Each in blocks
;;; until the other process's out supplies the tuple: the blocked process waits
;;; in the C core with its template, and the out wakes it. The S/Net kernel did
;;; 770 out/in pairs per second; `npm run bench -- linda` measures ours.

(define limit 20000)
(define me (self))

;; PING:  count = 0;
;;        while (TRUE) { in("ping"); if (++count == LIMIT) break; out("pong"); }
(define ping
  (spawn
   (lambda ()
     (let loop ((count 0))
       (in "ping")
       (let ((count (+ count 1)))
         (if (= count limit)
             (! me (list 'done count))
             (begin (out "pong") (loop count))))))))

;; PONG:  while (TRUE) { out("ping"); in("pong"); }
(define pong
  (spawn
   (lambda ()
     (let loop ()
       (out "ping")
       (in "pong")
       (loop)))))

(recv
 (('done count)
  ;; 20000 "ping" tuples and 19999 "pong" tuples went through the space
  (display (list count 'pings (- count 1) 'pongs))))
(newline)
;; PONG is now blocked in in("pong") for ever; the program ends anyway.
(display (list 'pongs-waiting (tuple-count "pong") 'pings-waiting (tuple-count "ping")))
(newline)
