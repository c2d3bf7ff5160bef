%% Remote spawn (BENCHMARKS.md): spawn a process on another node with a closure
%% and receive its reply; microseconds each. The closure carries the caller's pid,
%% a reference and a small piece of local data, and the spawned process answers
%% with a value computed from that data, so the closure's environment must travel.
-module(remote_spawn).
-export([run/4]).

run(Peer, Count, Warm, Rounds) ->
    Data = {[1, 2, 3], <<"local data">>, 42},
    [spawn_reply(Peer, Data) || _ <- lists:seq(1, Warm)],
    lists:foreach(
      fun(R) ->
              T0 = erlang:monotonic_time(microsecond),
              [spawn_reply(Peer, Data) || _ <- lists:seq(1, Count)],
              T1 = erlang:monotonic_time(microsecond),
              io:format("result remote_spawn.2node ~b ~.3f~n", [R, (T1 - T0) / Count])
      end, lists:seq(1, Rounds)).

spawn_reply(Peer, Data) ->
    Parent = self(),
    Ref = make_ref(),
    spawn(Peer, fun() -> {L, _, X} = Data, Parent ! {Ref, node(), lists:sum(L) + X} end),
    receive
        {Ref, Node, 48} when Node =:= Peer -> ok
    after 10000 -> error({no_reply_from, Peer})
    end.
