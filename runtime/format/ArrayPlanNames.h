// The array plan's enum spellings and tile text, shared by its reader (runtime/format/ArrayPlan.cpp)
// and its writers (utils/format-write/ArrayPlanWriter.cpp). Internal to the format libraries.
#pragma once

#include "hrx/format/ArrayPlan.h"

#include "JsonFields.h"

#include <string>
#include <string_view>
#include <utility>

namespace hrx::format::detail {

inline constexpr std::pair<std::string_view, TileKind> kTileKinds[] = {
    {"shim", TileKind::Shim}, {"memtile", TileKind::MemTile}, {"compute", TileKind::Compute}};
inline constexpr std::pair<std::string_view, PlanAccess> kAccesses[] = {
    {"read", PlanAccess::Read}, {"write", PlanAccess::Write}, {"read-write", PlanAccess::ReadWrite}};
inline constexpr std::pair<std::string_view, PortDirection> kDirections[] = {
    {"in", PortDirection::Input}, {"out", PortDirection::Output}, {"state", PortDirection::State}};
inline constexpr std::pair<std::string_view, Transport> kTransports[] = {
    {"external-dma", Transport::ExternalDma}, {"neighbor-memory", Transport::NeighborMemory}};
inline constexpr std::pair<std::string_view, LockRole> kLockRoles[] = {{"credit", LockRole::Credit},
                                                                       {"ready", LockRole::Ready}};
inline constexpr std::pair<std::string_view, DmaDirection> kDmaDirections[] = {
    {"stream-to-memory", DmaDirection::StreamToMemory}, {"memory-to-stream", DmaDirection::MemoryToStream}};
inline constexpr std::pair<std::string_view, PortBundle> kBundles[] = {
    {"dma", PortBundle::Dma},     {"core", PortBundle::Core},   {"ctrl", PortBundle::Ctrl},
    {"fifo", PortBundle::Fifo},   {"south", PortBundle::South}, {"west", PortBundle::West},
    {"north", PortBundle::North}, {"east", PortBundle::East},   {"noc", PortBundle::Noc}};
inline constexpr std::pair<std::string_view, RouteKind> kRouteKinds[] = {{"shim-mux", RouteKind::ShimMux},
                                                                         {"switch", RouteKind::Switch}};

template <typename E, size_t N> std::string_view nameOf(const std::pair<std::string_view, E> (&names)[N], E v) {
  return enumName<E>(names, v);
}

inline std::string tileText(TileCoord t) { return "(" + std::to_string(t.column) + "," + std::to_string(t.row) + ")"; }

}  // namespace hrx::format::detail
