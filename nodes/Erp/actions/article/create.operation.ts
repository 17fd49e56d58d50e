import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { additionalFields } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { checkFields } from '../fields';
import { articleFieldSpecs, optionalArticleFields, requiredArticleFields } from './fields';

export const properties: INodeProperties[] = [
	...requiredArticleFields,
	additionalFields(optionalArticleFields),
];

/** Reads and checks the body of a new article (also used by find-or-create). */
export function readNewArticle(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const values: IDataObject = {
		reference: this.getNodeParameter('reference', itemIndex),
		designation: this.getNodeParameter('designation', itemIndex),
		prix_ht: this.getNodeParameter('prix_ht', itemIndex),
		tva: this.getNodeParameter('tva', itemIndex),
		...(this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject),
	};
	return checkFields(this, itemIndex, articleFieldSpecs, values);
}

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const body = readNewArticle.call(this, itemIndex);
	return async () => await erp.request({ method: 'POST', path: '/articles', body });
}
