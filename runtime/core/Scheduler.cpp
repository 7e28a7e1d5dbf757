// Submission, the lane workers, completions and quarantine. Everything a submit or replay
// touches was allocated at prepare(): slots, region runs, dependent lists.
#include "RuntimeImpl.h"

#include <algorithm>

namespace hrx::runtime {
namespace {

bool footprintsConflict(const PreparedGraph &a, const PreparedGraph &b) {
  if (&a == &b) return true;  // one graph's submissions run in order (whole-graph reservation)
  for (const Footprint &x : a.footprint)
    for (const Footprint &y : b.footprint)
      if (x.allocation == y.allocation && (x.write || y.write) && x.begin < y.end && y.begin < x.end) return true;
  return false;
}

// Takes (or, with `release`, returns) the device-use counts a submission holds on its
// allocations. Busy when a live host guard conflicts; DeviceLost when poisoned.
Status reserveAllocations(PreparedGraph &graph) {
  size_t reserved = 0;
  Status status;
  for (; reserved < graph.footprint.size(); ++reserved) {
    const Footprint &f = graph.footprint[reserved];
    Allocation &a = *f.allocation;
    std::lock_guard lock(a.mutex);
    if (a.poisoned.load()) {
      status =
          Status(StatusCode::DeviceLost, "a bound allocation is poisoned (quarantined after uncertain completion)");
      break;
    }
    if (a.hostWriter || (f.write && a.hostReaders > 0)) {
      status = Status(StatusCode::Busy, "device binding conflicts with a live host mapping");
      break;
    }
    ++(f.write ? a.deviceWriters : a.deviceReaders);
  }
  if (status) return status;
  for (size_t i = 0; i < reserved; ++i) {
    const Footprint &f = graph.footprint[i];
    std::lock_guard lock(f.allocation->mutex);
    --(f.write ? f.allocation->deviceWriters : f.allocation->deviceReaders);
  }
  return status;
}

void releaseAllocations(PreparedGraph &graph) {
  for (const Footprint &f : graph.footprint) {
    {
      std::lock_guard lock(f.allocation->mutex);
      --(f.write ? f.allocation->deviceWriters : f.allocation->deviceReaders);
    }
    f.allocation->changed.notify_all();
  }
}

void failIfPoisoned(SubmissionSlot &slot) {
  // An earlier submission this one waited for may have been quarantined meanwhile: its regions
  // are then skipped, and it fails rather than touch storage that may still be under execution.
  for (const Footprint &f : slot.graph->footprint)
    if (f.allocation->poisoned.load() && slot.result) {
      slot.result = Status(StatusCode::DeviceLost,
                           "a bound allocation was quarantined by an earlier submission whose retirement could not "
                           "be confirmed");
      break;
    }
}

void startRoots(RuntimeState &rt, SubmissionSlot &slot) {
  failIfPoisoned(slot);
  const auto &regions = slot.graph->regions;
  for (unsigned r = 0; r < regions.size(); ++r)
    if (regions[r].predecessorCount == 0) rt.enqueue(&slot.runs[r]);
}

}  // namespace

void RuntimeState::enqueue(RegionRun *run) {
  LaneWorker &lane = lanes[static_cast<unsigned>(run->slot->graph->regions[run->region].lane)];
  run->next = nullptr;
  if (lane.tail)
    lane.tail->next = run;
  else
    lane.head = run;
  lane.tail = run;
  if (!lane.busy) lane.wake.notify_one();  // a busy lane looks at its queue when it finishes
}

void RuntimeState::laneMain(Lane laneId) {
  LaneWorker &lane = lanes[static_cast<unsigned>(laneId)];
  std::unique_lock lock(mutex);
  for (;;) {
    // A runtime destroyed with work in flight keeps every lane until that work drains: a
    // region may still enqueue its successors on any lane.
    lane.wake.wait(lock, [&] { return (lane.head && !lane.busy) || (stopping && inflightCount == 0); });
    if (!lane.head) return;
    RegionRun *run = lane.head;
    lane.head = run->next;
    if (!lane.head) lane.tail = nullptr;
    runRegion(run, lock);
  }
}

void RuntimeState::runRegion(RegionRun *run, std::unique_lock<std::mutex> &lock) {
  SubmissionSlot &slot = *run->slot;
  Lane laneId = slot.graph->regions[run->region].lane;
  LaneWorker &lane = lanes[static_cast<unsigned>(laneId)];
  Status status;
  if (!slot.cancelled && slot.result) {
    if (!slot.hasStarted) {
      slot.hasStarted = true;
      slot.started = Clock::now();
    }
    lane.busy = true;
    lock.unlock();
    uint64_t copied = 0;
    Clock::time_point start = Clock::now();
    if (faultHit(faults::FaultSite::Execution))
      status = Status(StatusCode::Internal, "region " + std::to_string(run->region) + " on the " + laneName(laneId) +
                                                " lane failed: injected execution fault (HRX_FAULT_INJECT)");
    else
      status = executeRegion(*slot.graph, slot.graph->regions[run->region], copied);
    Clock::time_point end = Clock::now();
    copiedBytes.fetch_add(copied);
    recordTrace(start, end, laneId, copied, !status);
    lock.lock();
    lane.busy = false;
    // Work queued while a submitter ran this lane's region is the lane thread's again.
    if (lane.head) lane.wake.notify_one();
    // A device that faulted or was lost cannot confirm the region retired: quarantine.
    if (status.code() == StatusCode::DeviceLost) quarantineLocked(*slot.graph);
  }
  finishRegion(slot, run->region, status);
}

void RuntimeState::finishRegion(SubmissionSlot &slot, unsigned region, const Status &status) {
  if (!status && slot.result) slot.result = status;
  slot.regionDone[region] = 1;
  for (unsigned next : slot.graph->regions[region].successors)
    if (--slot.pendingPredecessors[next] == 0) enqueue(&slot.runs[next]);
  if (--slot.remainingRegions == 0) finishSubmission(slot);
}

void RuntimeState::finishSubmission(SubmissionSlot &slot) {
  slot.finished = Clock::now();
  if (slot.cancelled && slot.result) slot.result = Status(StatusCode::Cancelled, "the submission was cancelled");
  if (faultHit(faults::FaultSite::Retirement)) {
    // Uncertain retirement: the device may still touch the storage, so nothing is released.
    slot.result = Status(StatusCode::DeviceLost, "the submission's retirement could not be confirmed (injected "
                                                 "retirement fault: HRX_FAULT_INJECT); its " +
                                                     std::to_string(slot.graph->allocations.size()) +
                                                     " allocation(s) are poisoned and retained until exit");
    quarantineLocked(*slot.graph);
  } else {
    releaseAllocations(*slot.graph);
  }
  completions.fetch_add(1);
  // Unlink from the in-flight list and release the submissions that waited for this one.
  (slot.inflightPrev ? slot.inflightPrev->inflightNext : inflightHead) = slot.inflightNext;
  if (slot.inflightNext) slot.inflightNext->inflightPrev = slot.inflightPrev;
  slot.inflightPrev = slot.inflightNext = nullptr;
  --inflightCount;
  for (SubmissionSlot *dependent : slot.dependents)
    if (--dependent->blockingSubmissions == 0) startRoots(*this, *dependent);
  slot.dependents.clear();
  slot.state = slot.observed ? SubmissionSlot::State::Done : SubmissionSlot::State::Free;
  notifyCompleted();
  if (stopping && inflightCount == 0)
    for (LaneWorker &lane : lanes) lane.wake.notify_all();
}

void quarantineLocked(PreparedGraph &graph) {
  if (graph.quarantined) return;
  graph.quarantined = true;
  for (const auto &allocation : graph.allocations) {
    {
      std::lock_guard lock(allocation->mutex);
      allocation->poisoned.store(true);
    }
    allocation->changed.notify_all();
  }
  retainUntilExit(graph.shared_from_this());
}

StatusOr<Completion> Executable::submit() { return submit(/*callerWaits=*/false); }

Status Executable::submitAndWait() {
  StatusOr<Completion> completion = submit(/*callerWaits=*/true);
  if (!completion) return completion.status();
  return completion->wait();
}

StatusOr<Completion> Executable::submit(bool callerWaits) {
  if (!graph_) return Status(StatusCode::FailedPrecondition, "submit of an empty executable");
  PreparedGraph &graph = *graph_;
  RuntimeState &rt = *graph.runtime;
  std::unique_lock lock(rt.mutex);
  if (rt.stopping) return Status(StatusCode::FailedPrecondition, "the runtime has shut down");
  if (graph.quarantined)
    return Status(StatusCode::DeviceLost, "the executable is quarantined after an uncertain completion");
  if (rt.inflightCount >= rt.options.maxSubmissions)
    return Status(StatusCode::Busy, "runtime submission capacity exhausted (" +
                                        std::to_string(rt.options.maxSubmissions) + " accepted submissions in flight)");
  SubmissionSlot *slot = nullptr;
  for (SubmissionSlot &candidate : graph.slots)
    if (candidate.state == SubmissionSlot::State::Free) {
      slot = &candidate;
      break;
    }
  if (!slot)
    return Status(StatusCode::Busy, "graph completion slots exhausted (" + std::to_string(graph.slots.size()) +
                                        " slots; retained completions keep theirs)");
  if (Status s = reserveAllocations(graph); !s) return s;
  if (rt.faultHit(faults::FaultSite::Submission)) {
    releaseAllocations(graph);
    return Status(StatusCode::Internal, "the device refused the submission (injected submission fault: "
                                        "HRX_FAULT_INJECT)");
  }

  slot->state = SubmissionSlot::State::Active;
  slot->observed = true;
  slot->cancelled = false;
  slot->result = Status::ok();
  slot->hasStarted = false;
  slot->submitted = Clock::now();
  slot->remainingRegions = static_cast<unsigned>(graph.regions.size());
  for (unsigned r = 0; r < graph.regions.size(); ++r) {
    slot->pendingPredecessors[r] = graph.regions[r].predecessorCount;
    slot->regionDone[r] = 0;
  }
  slot->blockingSubmissions = 0;
  for (SubmissionSlot *other = rt.inflightHead; other; other = other->inflightNext)
    if (footprintsConflict(graph, *other->graph)) {
      other->dependents.push_back(slot);
      ++slot->blockingSubmissions;
    }
  slot->inflightNext = rt.inflightHead;
  if (rt.inflightHead) rt.inflightHead->inflightPrev = slot;
  rt.inflightHead = slot;
  ++rt.inflightCount;
  rt.submissions.fetch_add(1);
  if (slot->blockingSubmissions == 0) {
    // Inline completion: a small fill/copy-only graph of one region whose lane is idle runs
    // on the submitting thread; a hand-off to the lane thread would cost more than the work.
    // So does any one-region graph whose submitter waits at once (submitAndWait): it would only
    // sleep while the lane thread ran it.
    LaneWorker &lane = rt.lanes[static_cast<unsigned>(graph.regions[0].lane)];
    bool runsInline = graph.inlineable || (callerWaits && graph.regions.size() == 1);
    if (runsInline && !lane.head && !lane.busy) {
      failIfPoisoned(*slot);
      Completion completion(graph_, slot);
      rt.runRegion(&slot->runs[0], lock);
      return completion;
    }
    startRoots(rt, *slot);
  }
  return Completion(graph_, slot);
}

size_t Executable::regions() const { return graph_ ? graph_->regions.size() : 0; }
Lane Executable::regionLane(size_t region) const { return graph_->regions.at(region).lane; }
const std::vector<Hazard> &Executable::hazards() const {
  static const std::vector<Hazard> kNone;
  return graph_ ? graph_->hazards : kNone;
}

Executable &Executable::operator=(Executable &&other) noexcept {
  if (this != &other) {
    release();
    graph_ = std::move(other.graph_);
  }
  return *this;
}

Executable::~Executable() { release(); }

void Executable::release() {
  if (!graph_) return;
  RuntimeState &rt = *graph_->runtime;
  bool retired;
  {
    std::unique_lock lock(rt.mutex);
    if (graph_->quarantined) {  // already leaked on purpose; nothing to wait for
      lock.unlock();
      graph_.reset();
      return;
    }
    auto allRetired = [&] {
      for (const SubmissionSlot &slot : graph_->slots)
        if (slot.state == SubmissionSlot::State::Active) return false;
      return true;
    };
    retired = rt.waitCompletedFor(lock, std::chrono::seconds(10), allRetired);
  }
  if (!retired) quarantine();
  graph_.reset();
}

void Executable::quarantine() {
  if (!graph_) return;
  std::lock_guard lock(graph_->runtime->mutex);
  quarantineLocked(*graph_);
}

Completion::Completion(Completion &&other) noexcept
    : graph_(std::move(other.graph_)), slot_(std::exchange(other.slot_, nullptr)) {}

Completion &Completion::operator=(Completion &&other) noexcept {
  if (this != &other) {
    detach();
    graph_ = std::move(other.graph_);
    slot_ = std::exchange(other.slot_, nullptr);
  }
  return *this;
}

Completion::~Completion() { detach(); }

void Completion::detach() {
  if (!slot_) return;
  {
    std::lock_guard lock(graph_->runtime->mutex);
    slot_->observed = false;
    if (slot_->state == SubmissionSlot::State::Done) slot_->state = SubmissionSlot::State::Free;
  }
  slot_ = nullptr;
  graph_.reset();
}

Status Completion::wait() {
  if (!slot_) return Status(StatusCode::FailedPrecondition, "wait on an empty completion");
  RuntimeState &rt = *graph_->runtime;
  std::unique_lock lock(rt.mutex);
  // A single-region submission still queued at the head of an idle lane runs here: the waiter
  // would only sleep while the lane thread ran it (no hand-off there and back).
  if (slot_->state == SubmissionSlot::State::Active && slot_->runs.size() == 1 && slot_->blockingSubmissions == 0) {
    RegionRun *run = &slot_->runs[0];
    LaneWorker &lane = rt.lanes[static_cast<unsigned>(graph_->regions[0].lane)];
    if (lane.head == run && !lane.busy) {
      lane.head = run->next;
      if (!lane.head) lane.tail = nullptr;
      rt.runRegion(run, lock);
    }
  }
  rt.waitCompleted(lock, [&] { return slot_->state != SubmissionSlot::State::Active; });
  return slot_->result;
}

bool Completion::waitFor(std::chrono::nanoseconds timeout) {
  if (!slot_) return true;
  RuntimeState &rt = *graph_->runtime;
  std::unique_lock lock(rt.mutex);
  return rt.waitCompletedFor(lock, timeout, [&] { return slot_->state != SubmissionSlot::State::Active; });
}

bool Completion::isComplete() const {
  if (!slot_) return true;
  std::lock_guard lock(graph_->runtime->mutex);
  return slot_->state != SubmissionSlot::State::Active;
}

Status Completion::poll() const {
  if (!slot_) return Status(StatusCode::FailedPrecondition, "poll of an empty completion");
  std::lock_guard lock(graph_->runtime->mutex);
  if (slot_->state == SubmissionSlot::State::Active) return Status(StatusCode::Busy, "the submission is running");
  return slot_->result;
}

void Completion::cancel() {
  if (!slot_) return;
  std::lock_guard lock(graph_->runtime->mutex);
  if (slot_->state == SubmissionSlot::State::Active) slot_->cancelled = true;
}

CompletionProfile Completion::profile() const {
  if (!slot_) return {};
  std::lock_guard lock(graph_->runtime->mutex);
  if (slot_->state == SubmissionSlot::State::Active || !slot_->hasStarted) return {};
  auto us = [](Clock::duration d) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(d).count());
  };
  return CompletionProfile{us(slot_->finished - slot_->started), us(slot_->started - slot_->submitted)};
}

std::optional<Clock::time_point> Completion::finishedAt() const {
  if (!slot_) return std::nullopt;
  std::lock_guard lock(graph_->runtime->mutex);
  if (slot_->state == SubmissionSlot::State::Active) return std::nullopt;
  return slot_->finished;
}

std::vector<Lane> Completion::pendingLanes() const {
  std::vector<Lane> lanes;
  if (!slot_) return lanes;
  std::lock_guard lock(graph_->runtime->mutex);
  if (slot_->state != SubmissionSlot::State::Active) return lanes;
  for (unsigned r = 0; r < slot_->regionDone.size(); ++r) {
    Lane lane = graph_->regions[r].lane;
    if (!slot_->regionDone[r] && std::find(lanes.begin(), lanes.end(), lane) == lanes.end()) lanes.push_back(lane);
  }
  return lanes;
}

}  // namespace hrx::runtime
