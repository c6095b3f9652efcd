import Foundation

extension AdRequest.Context {
    /// Who wrote a conversation message (``AdRequest/Context/Message/role``).
    public enum Role: String, Sendable, Hashable, Codable {
        /// The app's user.
        case user
        /// The app's assistant (bot).
        case assistant
        /// A summary of earlier messages.
        case summary
    }
}

extension AdRequest.Context {
    /// One message of the conversation on screen, for networks that target chat context (Elo).
    /// Content is user data: it goes to the networks in ad requests only, never into events,
    /// traces or logs.
    public struct Message: Hashable, Sendable, Codable {
        /// Who wrote it.
        public var role: Role
        /// The text.
        public var content: String
        /// The host's id for the message, if any.
        public var id: String?
        /// When it was written, if known.
        public var createdAt: Date?

        /// Creates a message.
        public init(role: Role, content: String, id: String? = nil, createdAt: Date? = nil) {
            self.role = role
            self.content = content
            self.id = id
            self.createdAt = createdAt
        }
    }
}

extension AdRequest.Context {
    /// A typed piece of context the host knows about the screen (e.g. `product`, `topic`).
    public struct Object: Hashable, Sendable, Codable {
        /// The kind of context, e.g. `"product"`.
        public var type: String
        /// A description of it.
        public var description: String

        /// Creates a context object.
        public init(type: String, description: String) {
            self.type = type
            self.description = description
        }
    }
}

extension AdRequest {
    /// What the host app knows about the moment of the request: the conversation on screen and
    /// the screen's name. Never logged or put into events.
    public struct Context: Hashable, Sendable {
        /// The conversation, oldest first.
        public var messages: [Message]
        /// Context objects describing the screen.
        public var contextObjects: [Object]
        /// The name of the screen the slot is on, e.g. `"Chat"`.
        public var screenName: String?

        /// Creates a host context.
        public init(messages: [Message] = [], contextObjects: [Object] = [], screenName: String? = nil) {
            self.messages = messages
            self.contextObjects = contextObjects
            self.screenName = screenName
        }
    }
}
