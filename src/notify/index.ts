// Notifications: webhook and Telegram targets for a running deployment's events.
export * from './channels.js';
export * from './dispatcher.js';
export * from './format.js';
export * from './notifier.js';
export * from './telegram-commands.js';
