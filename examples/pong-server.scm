;;; The pong server (Termite paper §4.1)
;;;
;;; A process is created with `spawn`, which takes a thunk. This one loops forever:
;;; it takes the next message from its mailbox with `?`, and if the message is a
;;; list (pid ping) it answers the pid with the symbol pong. Anything else is
;;; dropped. Sending (`!`) never blocks; receiving (`?`) blocks until a message
;;; arrives.

(define pong-server
  (spawn
   (lambda ()
     (let loop ()
       (let ((msg (?)))
         (if (and (list? msg)
                  (= (length msg) 2)
                  (pid? (car msg))
                  (eq? (cadr msg) 'ping))
             (let ((from (car msg)))
               (! from 'pong)
               (loop))
             (loop)))))))

(! pong-server (list (self) 'ping))
(display (?))                      ; ⇒ pong
(newline)

;; The same server written with `recv` (§4.3): the pattern both selects the
;; message and takes it apart.
(define pong-server-2
  (spawn
   (lambda ()
     (let loop ()
       (recv
        ((from 'ping) (! from 'pong)))
       (loop)))))

(! pong-server-2 'garbage)         ; ignored: left in the server's mailbox
(! pong-server-2 (list (self) 'ping))
(display (?))                      ; ⇒ pong
(newline)
