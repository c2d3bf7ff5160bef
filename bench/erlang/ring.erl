%% Process ring, the workload of BENCHMARKS.md: a ring of N processes on one node
%% (the driver plus N-1 spawned relays, each knowing its successor). The driver
%% injects Seed; a process receiving V > 0 sends V-1 to its successor; a process
%% receiving 0 relays it and stops, so the ring is destroyed. Wall time from the
%% first spawn to the last exit.
%%
%% The 0 is first received by process (Seed + 1) rem N (the driver is process 0,
%% its successor process 1), and the last process to see it is the one before that.
%% For the defined workloads (N = 250,000; seeds 0 and 1,000,000) that is the
%% driver itself, so the run ends when the driver has received 0 and the last relay
%% (its predecessor, the last process still alive) has exited; other seeds are
%% refused rather than timed wrongly.
%%
%%   erl -noshell +P 1048576 -run ring main N Seed Warmup Rounds
%% prints "result ring.seed<Seed> <round> <seconds>" per timed round, then
%% "result ring.idle_bytes 0 <bytes per idle process>".
-module(ring).
-export([main/1, run/2, relay/1]).

main([NS, SeedS, WarmS, RoundsS]) ->
    N = list_to_integer(NS),
    Seed = list_to_integer(SeedS),
    Warm = list_to_integer(WarmS),
    Rounds = list_to_integer(RoundsS),
    try
        [run(N, Seed) || _ <- lists:seq(1, Warm)],
        lists:foreach(
          fun(R) ->
                  S = run(N, Seed),
                  io:format("result ring.seed~b ~b ~.6f~n", [Seed, R, S])
          end, lists:seq(1, Rounds)),
        io:format("result ring.idle_bytes 0 ~.1f~n", [idle_bytes(10000)]),
        halt(0)
    catch C:E:St ->
            io:format(standard_error, "ring failed: ~p:~p ~p~n", [C, E, St]),
            halt(1)
    end.

%% One ring; seconds of wall time.
run(N, Seed) when N >= 2, (Seed + 1) rem N =:= 1 ->
    erlang:garbage_collect(),
    T0 = erlang:monotonic_time(microsecond),
    Driver = self(),
    Last = spawn(?MODULE, relay, [Driver]),
    Mon = erlang:monitor(process, Last),
    First = build(N - 2, Last),
    First ! Seed,
    driver(First),
    receive {'DOWN', Mon, process, Last, _} -> ok end,
    T1 = erlang:monotonic_time(microsecond),
    (T1 - T0) / 1.0e6.

%% Spawn K more relays in front of Next; the first of them.
build(0, Next) -> Next;
build(K, Next) -> build(K - 1, spawn(?MODULE, relay, [Next])).

relay(Next) ->
    receive
        0 -> Next ! 0;
        V -> Next ! V - 1, relay(Next)
    end.

%% The driver is a member of the ring like any relay.
driver(Next) ->
    receive
        0 -> Next ! 0;
        V -> Next ! V - 1, driver(Next)
    end.

%% Memory per idle process (blocked in receive, like a relay): the growth of
%% erlang:memory(processes) over Count spawned processes, divided by Count.
idle_bytes(Count) ->
    erlang:garbage_collect(),
    Before = erlang:memory(processes),
    Ps = [spawn(?MODULE, relay, [self()]) || _ <- lists:seq(1, Count)],
    After = erlang:memory(processes),
    [exit(P, kill) || P <- Ps],
    (After - Before) / Count.
