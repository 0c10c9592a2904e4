import { BROADCAST, type Message, type MessageKind } from '@shared/domain';

/** A team member as delivery sees it. */
export interface BusMember {
  /** Name inside the team (what drafts use as `to`). */
  name: string;
  acceptedKinds: readonly MessageKind[];
  receiveOwnBroadcasts: boolean;
}

/** Who a message reaches inside one team. */
export interface Delivery {
  /** Member name of the sender, or null for the owner and strangers. */
  sender: string | null;
  /** Members whose inbox gets the message; `own` ones already have it in their view. */
  receivers: Array<{ name: string; own: boolean }>;
  /**
   * `team`: delivered to members (maybe none); `owner`: leaves the team; `dropped`: no such
   * receiver; `self`: a member's note to itself (tool calls and results); `bounce`: the receiver
   * does not accept the kind and answers with an error message.
   */
  outcome: 'team' | 'owner' | 'dropped' | 'self' | 'bounce';
  /** The member that bounces the message, for `bounce`. */
  bouncedBy: BusMember | null;
}

/** Member name from an envelope name, or null when it is not a member of the team. */
export function memberOf(
  members: ReadonlyMap<string, BusMember>,
  scope: string,
  address: string,
): string | null {
  const local = address.startsWith(scope) ? address.slice(scope.length) : address;
  return members.has(local) ? local : null;
}

/**
 * The delivery rules of one team, as a pure function so the live bus and the fold that rebuilds
 * a session's runtime state from its events route every message the same way: a broadcast
 * reaches every member that accepts its kind (the sender only with `receiveOwnBroadcasts`); a
 * direct message reaches its receiver when it accepts the kind (a runtime error message always
 * does), else the receiver bounces it; a message to the owner leaves the team.
 */
export function routeMessage(
  members: ReadonlyMap<string, BusMember>,
  scope: string,
  owner: string,
  message: Message,
): Delivery {
  const sender = memberOf(members, scope, message.from);
  const delivery = (outcome: Delivery['outcome'], receivers: Delivery['receivers'] = []): Delivery => ({
    sender,
    receivers,
    outcome,
    bouncedBy: null,
  });
  if (message.to === BROADCAST) {
    const receivers: Delivery['receivers'] = [];
    for (const member of members.values()) {
      if (member.name === sender && !member.receiveOwnBroadcasts) continue;
      if (!member.acceptedKinds.includes(message.kind)) continue;
      receivers.push({ name: member.name, own: member.name === sender });
    }
    return delivery('team', receivers);
  }
  if (message.to === owner) return delivery('owner');
  const receiver = memberOf(members, scope, message.to);
  if (receiver === null) return delivery('dropped');
  if (receiver === sender) return delivery('self');
  const member = members.get(receiver) as BusMember;
  const isRuntimeError = message.kind === 'error' && message.meta.bounced === true;
  if (member.acceptedKinds.includes(message.kind) || isRuntimeError)
    return delivery('team', [{ name: receiver, own: false }]);
  return { sender, receivers: [], outcome: 'bounce', bouncedBy: member };
}
