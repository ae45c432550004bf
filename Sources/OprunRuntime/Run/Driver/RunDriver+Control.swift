import OprunCore

/// Control requests (`oprun ctl`, SPEC §8): one step each, taken like every other command.
extension RunDriver {
  /// Checks `request`, announces it by its `control` event, answers it, then carries it
  /// out: the event and the answer come before every transition the request causes, and a
  /// refused request changes nothing. Before `run-started` and after `run-finished`
  /// nothing is published: a request then is only answered, refused.
  func control(_ request: ControlRequest, reply: ControlReply) {
    guard lifecycle.isInProgress, let identity = lifecycle.identity else {
      reply.send(.refused(lifecycle.hasAnnouncedEnd ? "the run has finished" : "the run has not started yet"))
      return
    }
    let checked = action(for: request)
    var refusal: ControlRefusal?
    if case .failure(let reason) = checked { refusal = reason }
    publish(
      .control(
        command: request.command, args: request.args, ok: refusal == nil, peerUID: request.peerUID,
        peerPID: request.peerPID, error: refusal?.message))
    switch checked {
    case .failure(let refusal):
      reply.send(.refused(refusal.message))
    case .success(let action):
      reply.send(ControlAnswer(ok: true, data: action == .status ? statusMembers(of: identity) : []))
      carryOut(action)
    }
  }

  /// What an accepted request does, Foundation's way: the engine's cancel, cancelAll,
  /// isSuspended, maxConcurrentOperationCount and queuePriority, and the driver's own pause.
  /// What executing jobs need (a signal, a continue first) follows as reactions to the
  /// engine's events, as for every other cancellation.
  private func carryOut(_ action: ControlAction) {
    switch action {
    case .status, .watch:
      break
    case .cancel(let jobs):
      for job in jobs { engine.cancel(job, reason: .control) }
    case .cancelAll(let queues):
      engine.cancelAll(queues: queues, reason: .control)
    case .suspend(let queues):
      for queue in queues { engine.setSuspended(queue, true) }
    case .resume(let queues):
      for queue in queues { engine.setSuspended(queue, false) }
    case .limit(let queue, let limit):
      engine.setMaxConcurrent(queue, limit)
    case .budget(let budget):
      engine.setBudget(budget)
    case .priority(let jobs, let priority):
      for job in jobs { _ = engine.setPriority(job, priority) }
    case .pause(let jobs):
      for job in jobs { pause(job) }
    case .continue(let jobs):
      for job in jobs { continuePaused(job) }
    }
  }
}
