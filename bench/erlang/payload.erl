%% Payload (BENCHMARKS.md): a binary of Size bytes sent to a process on the other
%% node and echoed back; round trips per second.
-module(payload).
-export([run/5, echo/0]).

run(Peer, Size, Count, Warm, Rounds) ->
    Echo = spawn(Peer, ?MODULE, echo, []),
    Bin = crypto_free_bytes(Size),
    Name = io_lib:format("payload.~s.2node", [label(Size)]),
    [trip(Echo, Bin, Count) || _ <- lists:seq(1, Warm)],
    lists:foreach(
      fun(R) ->
              T0 = erlang:monotonic_time(microsecond),
              trip(Echo, Bin, Count),
              T1 = erlang:monotonic_time(microsecond),
              io:format("result ~s ~b ~.1f~n", [Name, R, Count * 1.0e6 / (T1 - T0)])
      end, lists:seq(1, Rounds)),
    Echo ! stop.

label(1024) -> "1k";
label(65536) -> "64k";
label(N) -> integer_to_list(N).

trip(_, _, 0) -> ok;
trip(Echo, Bin, N) ->
    Echo ! {self(), Bin},
    receive
        {Echo, Back} when byte_size(Back) =:= byte_size(Bin) -> trip(Echo, Bin, N - 1)
    after 10000 -> error(no_echo)
    end.

echo() ->
    receive
        {From, Bin} -> From ! {self(), Bin}, echo();
        stop -> ok
    end.

%% Pseudo-random bytes without the crypto application (erlang-base has no crypto).
crypto_free_bytes(Size) ->
    rand:seed(exsss, {1, 2, 3}),
    << <<(rand:uniform(256) - 1)>> || _ <- lists:seq(1, Size) >>.
