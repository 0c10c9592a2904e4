import type { z } from 'zod';
import { appChannels } from './app';
import { sessionChannels } from './sessions';
import { runChannels } from './runs';
import { fleetChannels } from './fleets';
import { providerChannels } from './providers';
import { branchChannels } from './branches';
import { traceChannels } from './traces';
import { contextChannels } from './context';

export * from './define';
export * from './fields';
export * from './session-views';
export * from './app';
export * from './events';
export * from './wire';
export * from './sessions';
export * from './runs';
export * from './fleets';
export * from './providers';
export * from './lineage';
export * from './branches';
export * from './traces';
export * from './context';

/** The one declaration of every request/response channel, compiled by both sides. */
export const contract = {
  ...appChannels,
  ...sessionChannels,
  ...runChannels,
  ...fleetChannels,
  ...providerChannels,
  ...branchChannels,
  ...traceChannels,
  ...contextChannels,
} as const;

export type Contract = typeof contract;
export type ChannelName = keyof Contract;
/** What a caller sends (before defaults). */
export type Input<C extends ChannelName> = z.input<Contract[C]['input']>;
/** What a handler receives (after validation and defaults). */
export type ParsedInput<C extends ChannelName> = z.output<Contract[C]['input']>;
export type Output<C extends ChannelName> = z.output<Contract[C]['output']>;

export const CHANNEL_NAMES = Object.keys(contract) as ChannelName[];
