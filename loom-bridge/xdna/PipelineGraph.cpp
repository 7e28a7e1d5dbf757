#include "hrx/xdna/PipelineGraph.h"

namespace hrx::xdna {

uint32_t PipelineGraph::totalWorkers() const {
  uint32_t n = 0;
  for (const GraphWorker &w : workers) n += w.group < groups.size() ? groups[w.group].lanes : 0;
  return n;
}

}  // namespace hrx::xdna
