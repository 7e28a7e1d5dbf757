// The target registry (hrx/TargetRegistry.h): the build's backends (the generated
// registeredBackends() table), then those registered at run time.
#include "hrx/TargetRegistry.h"

#include "hrx/bridge/TargetBackend.h"

#include <algorithm>
#include <deque>
#include <mutex>

namespace hrx {
namespace {

struct Registry {
  std::mutex mutex;
  std::deque<TargetInfo> targets;  // a deque: registering keeps earlier TargetInfo addresses valid
  bool builtinsLoaded = false;
};

Registry &registry() {
  static Registry instance;
  return instance;
}

const TargetInfo &addLocked(Registry &r, bridge::BackendFactory factory) {
  TargetInfo info = factory()->info();
  info.create = factory;
  r.targets.push_back(std::move(info));
  return r.targets.back();
}

void loadBuiltinsLocked(Registry &r) {
  if (r.builtinsLoaded) return;
  r.builtinsLoaded = true;
  for (bridge::BackendFactory factory : bridge::registeredBackends()) addLocked(r, factory);
}

const TargetProfile *findProfile(const TargetInfo &info, std::string_view profile) {
  for (const TargetProfile &p : info.profiles)
    if (p.profile == profile) return &p;
  return nullptr;
}

template <typename Predicate> std::optional<Target> firstTarget(Predicate predicate) {
  for (const TargetInfo *info : registeredTargets())
    if (predicate(*info) && !info->profiles.empty()) return Target{info, info->profiles.front().profile};
  return std::nullopt;
}

}  // namespace

bool TargetInfo::reads(std::string_view option) const {
  return std::find(options.begin(), options.end(), option) != options.end();
}

const TargetStage *TargetInfo::stageEmitting(EmitKind kind) const {
  for (const TargetStage &stage : stagesBeforeLowering)
    if (std::find(stage.emits.begin(), stage.emits.end(), kind) != stage.emits.end()) return &stage;
  return nullptr;
}

std::vector<const TargetInfo *> registeredTargets() {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  loadBuiltinsLocked(r);
  std::vector<const TargetInfo *> out;
  for (const TargetInfo &info : r.targets) out.push_back(&info);
  return out;
}

std::string joinNames(const std::vector<std::string> &names, std::string_view conjunction) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? " " + std::string(conjunction) + " " : ", ";
    out += names[i];
  }
  return out;
}

std::optional<Target> defaultTarget() {
  return firstTarget([](const TargetInfo &info) { return info.isDefault; });
}

std::optional<Target> hostReferenceTarget() {
  return firstTarget([](const TargetInfo &info) { return info.hostReference; });
}

Target Target::xdna() { return parse("xdna").value_or(Target{}); }
Target Target::gfx1151() { return parse("gfx1151").value_or(Target{}); }
Target Target::gfx11Generic() { return parse("gfx11-generic").value_or(Target{}); }
Target Target::host() { return parse("host").value_or(Target{}); }

std::optional<Target> Target::parse(std::string_view name) {
  for (const TargetInfo *info : registeredTargets())
    for (const TargetProfile &p : info->profiles) {
      bool listed =
          std::any_of(p.listed.begin(), p.listed.end(), [&](const TargetSpelling &s) { return s.spelling == name; });
      if (listed || p.name == name || std::find(p.aliases.begin(), p.aliases.end(), name) != p.aliases.end())
        return Target{info, p.profile};
    }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> Target::all() {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const TargetInfo *info : registeredTargets())
    for (const TargetProfile &p : info->profiles)
      for (const TargetSpelling &s : p.listed) rows.emplace_back(s.spelling, s.description);
  return rows;
}

std::string Target::name() const {
  if (info)
    if (const TargetProfile *p = findProfile(*info, profile)) return p->name;
  return profile;
}

namespace bridge {

const TargetInfo &registerBackend(BackendFactory factory) {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  loadBuiltinsLocked(r);
  return addLocked(r, factory);
}

std::optional<cxx::ImportTarget> cxxImportTargetNamed(std::string_view name) {
  for (const TargetInfo *info : registeredTargets())
    for (const TargetProfile &profile : info->profiles) {
      Target target{info, profile.profile};
      std::unique_ptr<TargetBackend> backend = createBackend(target);
      if (!backend) continue;
      if (std::optional<cxx::ImportTarget> imported = backend->cxxImportTarget(target);
          imported && imported->name == name)
        return imported;
    }
  return std::nullopt;
}

}  // namespace bridge
}  // namespace hrx
