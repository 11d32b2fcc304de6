import VivariumSupport

extension HostRuntime {
  /// Has the session ask its person, the first time a module of its session
  /// (or a provider, which serves every session) uses a permission never
  /// decided, whether to allow it: as a question among its alerts, Allow or
  /// Deny, which the person answers as any other (`ok`, `cancel`). The use
  /// waits for the answer, which is kept in the data directory for the host.
  package func asksForPermissionsInAlerts() {
    permissionAsker.ask = { [weak self] plugin, permission in
      guard let self else { return .undecided }
      // The calls waiting on this answer wait for the person, not for their provider.
      return await self.host.waitingForThePerson {
        await withCheckedContinuation { answered in
          self.notifications.ask(
            title: "Allow \(plugin.name)?",
            question:
              "\(plugin.name) (\(PathName.lastComponent(plugin.path))) asks to \(permission.explanation) (\(permission)). Your answer is kept; \(self.services.invocation.command("permissions")) changes it.",
            HostNotifications.Choice(confirm: "Allow", cancel: "Deny")
          ) { allowed in answered.resume(returning: allowed ? .granted : .denied) }
          self.onScreenChanged()
        }
      }
    }
  }
}
