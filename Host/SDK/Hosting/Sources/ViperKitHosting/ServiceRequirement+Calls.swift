import ViperKit

extension ServiceRequirement {
  /// The requirement among `requires` that lets `caller` (for messages: a
  /// module's URN, or a provider) make `request`; else the refusal hosts
  /// and test harnesses answer alike (``ViperKit/ServiceCallError/undeclared(_:by:)``).
  public static func allowing(_ request: ServiceRequest, among requires: [ServiceRequirement], caller: String)
    -> Result<ServiceRequirement, ServiceCallError>
  {
    if let requirement = requires.first(where: { $0.service == request.service }) { return .success(requirement) }
    return .failure(.undeclared(request, by: caller))
  }
}
