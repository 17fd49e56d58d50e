import { invoiceLocator } from '../common.descriptions';
import { getOperation } from '../records';

export const { properties, prepare } = getOperation('invoice', invoiceLocator);
