// Delivery status of delivery contracts (spec 3.2) and which states allow new orders. The status itself
// comes from the venue (the ticker's deliveryStatus, polled by the feeds), never derived here.
import type { DeliveryStatus } from '../api/index.js';

/** Whether new orders may be placed in a delivery state. */
export const deliveryAllowsOrders = (s: DeliveryStatus | undefined): boolean =>
  s === undefined || s === 'delivery_normal' || s === 'delivery_config_period';
