// Delivery status of delivery contracts (spec 3.2) and which states allow new orders.
import type { DeliveryStatus } from '../api/index.js';
import type { InstrumentRules } from './instrument-rules.js';

/** Ten minutes before delivery no new orders are accepted (spec 3.2). */
export const DELIVERY_BEFORE_MS = 10 * 60_000;

/** Whether new orders may be placed in a delivery state. */
export const deliveryAllowsOrders = (s: DeliveryStatus | undefined): boolean =>
  s === undefined || s === 'delivery_normal' || s === 'delivery_config_period';

/**
 * The delivery state derived from the instrument's times, for when no ticker says it. Our reading:
 * before deliveryStartTime the pair is being configured; until 10 minutes before deliveryTime it
 * trades; then delivery_before; from deliveryTime on, delivery_period. Perpetuals have no state.
 */
export function deliveryStatusAt(rules: InstrumentRules, now: number): DeliveryStatus | undefined {
  const { deliveryTime, deliveryStartTime } = rules;
  if (deliveryTime === undefined) return undefined;
  if (deliveryStartTime !== undefined && now < deliveryStartTime) return 'delivery_config_period';
  if (now < deliveryTime - DELIVERY_BEFORE_MS) return 'delivery_normal';
  if (now < deliveryTime) return 'delivery_before';
  return 'delivery_period';
}
