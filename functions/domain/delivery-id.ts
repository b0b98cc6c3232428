/**
 * A delivery's id is derived from its event and endpoint, so dispatching an event twice finds the
 * same delivery, and the endpoint (whose partition holds the delivery) can be read back from it.
 */
const BODY = /^[0-9A-Za-z]+$/;

export const deliveryIdFor = (eventId: string, webhookId: string): string => {
  const event = eventId.replace(/^evt_/, '');
  const webhook = webhookId.replace(/^wh_/, '');
  if (!BODY.test(event) || !BODY.test(webhook)) throw new Error(`Unexpected ids ${eventId} / ${webhookId}`);
  return `dlv_${webhook}_${event}`;
};

export const parseDeliveryId = (deliveryId: string): { webhookId: string; eventId: string } | null => {
  const match = /^dlv_([0-9A-Za-z]+)_([0-9A-Za-z]+)$/.exec(deliveryId);
  return match ? { webhookId: `wh_${match[1]}`, eventId: `evt_${match[2]}` } : null;
};
