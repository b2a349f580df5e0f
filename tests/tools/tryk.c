/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written. */
int main(void)
{
	return 2;
}
